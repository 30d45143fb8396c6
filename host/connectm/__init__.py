"""connectm: a Connect-M game engine (host package)."""

__version__ = "0.1.0"
