"""Identify the load factor K_ML and the Coulomb torque Mc of a gearbox from its efficiency
curve eta(M1') ([S] eq. 27), as `chrono-flex identify efficiency FILE.csv` does.

The "measurement" is synthetic: the curve of the [S] drive (K_ML = 3.266 1/(N m),
Mc = 0.0405 N m) at 25 torques from 0.1 to 2 N m with efficiency noise of 0.005 (seeded).
Expected: K_ML = 3.27 +- 0.12 and Mc = 0.0405 +- 0.001 N m (95 % intervals), both
containing the true values.

Run as a script, it writes the measurement to a CSV file in a temporary directory (named
in the first line printed, removed when the script ends) and prints what
``chrono-flex identify efficiency`` prints for it.
"""

import os
import tempfile

import numpy as np

from chrono_flex.drive import efficiency_input, identify_command, identify_efficiency

TRUE_K_ML, TRUE_MC = 3.266, 0.0405

rng = np.random.default_rng(2019)
torque = np.linspace(0.1, 2.0, 25)
eta = efficiency_input(torque, TRUE_K_ML, TRUE_MC) + rng.normal(0.0, 0.005, torque.size)
fit = identify_efficiency(torque, eta)

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "efficiency.csv")
        with open(path, "w") as f:
            f.write("M_in [N m],eta\n")
            f.writelines(f"{m:.6g},{e:.6g}\n" for m, e in zip(torque, eta))
        print(identify_command(path))
