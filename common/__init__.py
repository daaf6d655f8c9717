"""Plain helpers shared by the three interface apps (not a Django app itself)."""
