"""0008_scale's report count triggers, dropped and added again around a later rebuild of a table, on SQLite only.

PostgreSQL adds a column without rebuilding the table, so its triggers stay as they are.
"""

import importlib

scale = importlib.import_module("reports.migrations.0008_scale")


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        scale.drop_count_triggers(apps, schema_editor)


def add(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        scale.add_count_triggers(apps, schema_editor)
