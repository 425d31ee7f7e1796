"""Table Companion: a referee and scorekeeper beside physical board games."""

__version__ = "0.1.0"
