"""The scenario catalogue: every named configuration chrono_flex can run.

* :mod:`~chrono_flex.scenarios.arms`: flexible arms from the papers (Bien & My 2018,
  Kozlowski 1994, the Kane-Ryan-Banerjee spin-up, a drive on a link), each a
  :class:`~chrono_flex.scenarios.arms.Case` that builds a :class:`~chrono_flex.PlanarArm`
  and the keyword arguments of its run; ``chrono-flex run CASE``. Each is also a model
  file (``examples/models/CASE.toml``, :func:`write_case_files`), and a model file is a
  case (:func:`case_from_file`; ``chrono-flex run FILE.toml``).
* :mod:`~chrono_flex.scenarios.spatial`: spatial arms and trees (a hub with two links,
  a satellite, the RRRP slew) on the reference engine.
* :mod:`~chrono_flex.scenarios.drive`: drive and friction experiments after
  Serebrenny et al. (2019) on the drive alone (presliding, Stribeck curve, stick-slip,
  voltage step).

The catalogue sits above the models and engines it uses; nothing below it imports it.
"""

from .arms import (CASES, DEFAULT_CASE, Case, all_cases, bien_link, case_from_file, get,
                   kozlowski_link, krb_link, pulse, spin_up, voltage_pulse, write_case_files)
from . import spatial as _spatial_cases       # registers the spatial and tree cases
from .drive import SCENARIOS as DRIVE_SCENARIOS
from .drive import ScenarioResult, run_scenario

__all__ = ["CASES", "DEFAULT_CASE", "Case", "all_cases", "bien_link", "case_from_file", "get",
           "kozlowski_link", "krb_link", "pulse", "spin_up", "voltage_pulse", "write_case_files",
           "DRIVE_SCENARIOS", "ScenarioResult", "run_scenario"]
