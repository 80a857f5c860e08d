"""Clean dirty Chinese web articles into aligned Chinese-English documents."""

__version__ = "0.1.0"
