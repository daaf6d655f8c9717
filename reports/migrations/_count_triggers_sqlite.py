"""The SQLite triggers that a rebuild of reports_project drops or trips over, dropped before and
added again after a later migration that rebuilds that table (SQLite only).

0008_scale's report count triggers (on reports_report) name reports_project, so SQLite refuses
to rename it while they exist; 0013_owner_project_count's are on reports_project itself and go
with the old table. PostgreSQL adds a column without rebuilding the table, so its triggers stay.
"""

import importlib

scale = importlib.import_module("reports.migrations.0008_scale")
owner_project_count = importlib.import_module("reports.migrations.0013_owner_project_count")


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        scale.drop_count_triggers(apps, schema_editor)
        owner_project_count.drop_triggers(apps, schema_editor)


def add(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        scale.add_count_triggers(apps, schema_editor)
        owner_project_count.add_triggers(apps, schema_editor)
