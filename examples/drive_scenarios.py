"""Run every named drive scenario (docs/drive.md §7) and save its figure.

Expected: presliding loops of ~5e-4 rad for the dynamic friction and a nearly vertical
line for the static one ([S] Fig. 7); a Stribeck drop from 0.0467 to 0.0405 N m with a
frictional-lag loop ([S] Fig. 8); stick-slip with breakaway at the static force 1.5 N
(Canudas de Wit et al. 1995); a 12 V step reaching ~9.22 rad/s.
"""

from chrono_flex.scenarios import DRIVE_SCENARIOS as SCENARIOS

results = {}

if __name__ == "__main__":
    for name, (description, run) in SCENARIOS.items():
        results[name] = run()
        print(results[name].summary(), "\n")
        results[name].plot(f"{name}.png")
