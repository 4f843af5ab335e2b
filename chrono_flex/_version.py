"""The package's version, defined once: pyproject.toml reads it (``dynamic = ["version"]``),
``chrono_flex.__version__`` and ``chrono-flex --version`` report it."""

__version__ = "0.3.0.dev0"
