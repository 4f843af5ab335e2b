"""``python -m chrono_flex`` runs the command line."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:               # Ctrl-C while the package loads: as during a run
    print("chrono-flex: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
