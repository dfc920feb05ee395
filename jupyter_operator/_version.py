"""The package's version (a leaf: the server extension reads it without the package)."""

__version__ = "0.1.0"
