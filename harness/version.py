"""The harness's version (the package's ``harness.__version__``)."""

__version__ = "0.1.0"
