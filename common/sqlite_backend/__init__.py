"""Django's SQLite backend, waiting for the write lock in short turns (see base.py)."""
