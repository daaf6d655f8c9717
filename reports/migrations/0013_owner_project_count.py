"""Each owner's project count, kept by triggers on reports_project, for the project lists' total.

As for the report counts (0008_scale, 0009_owner_report_count): in the database, so that every
path that inserts or deletes a project (get_or_create, the API, the admin, a cascade from a
deleted user) is counted. SQLite drops a table's triggers when a migration rebuilds it: a later
migration that rebuilds reports_project must run drop_triggers first and add_triggers after.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from common import migration_ops

POSTGRESQL_TRIGGERS = """
CREATE FUNCTION reports_owner_projects_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO reports_ownerprojectcount AS c (owner_id, project_count)
    SELECT owner_id, count(*) FROM new_projects GROUP BY owner_id ORDER BY owner_id
    ON CONFLICT (owner_id) DO UPDATE SET project_count = c.project_count + EXCLUDED.project_count;
    RETURN NULL;
END $$;
CREATE FUNCTION reports_owner_projects_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reports_ownerprojectcount AS c SET project_count = c.project_count - o.projects
    FROM (SELECT owner_id, count(*) AS projects FROM old_projects GROUP BY owner_id) AS o
    WHERE c.owner_id = o.owner_id;
    RETURN NULL;
END $$;
CREATE TRIGGER reports_owner_projects_insert AFTER INSERT ON reports_project
    REFERENCING NEW TABLE AS new_projects FOR EACH STATEMENT EXECUTE FUNCTION reports_owner_projects_insert();
CREATE TRIGGER reports_owner_projects_delete AFTER DELETE ON reports_project
    REFERENCING OLD TABLE AS old_projects FOR EACH STATEMENT EXECUTE FUNCTION reports_owner_projects_delete();
"""
POSTGRESQL_DROP = """
DROP TRIGGER IF EXISTS reports_owner_projects_insert ON reports_project;
DROP TRIGGER IF EXISTS reports_owner_projects_delete ON reports_project;
DROP FUNCTION IF EXISTS reports_owner_projects_insert();
DROP FUNCTION IF EXISTS reports_owner_projects_delete();
"""
# A project's owner never changes (it is read-only everywhere), so no UPDATE trigger.
SQLITE_TRIGGERS = [
    """CREATE TRIGGER reports_owner_projects_insert AFTER INSERT ON reports_project BEGIN
        INSERT INTO reports_ownerprojectcount (owner_id, project_count) VALUES (NEW.owner_id, 1)
        ON CONFLICT (owner_id) DO UPDATE SET project_count = project_count + 1;
    END""",
    """CREATE TRIGGER reports_owner_projects_delete AFTER DELETE ON reports_project BEGIN
        UPDATE reports_ownerprojectcount SET project_count = project_count - 1 WHERE owner_id = OLD.owner_id;
    END""",
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS reports_owner_projects_{name}" for name in ("insert", "delete")]
BACKFILL = (
    "INSERT INTO reports_ownerprojectcount (owner_id, project_count)"
    " SELECT owner_id, count(*) FROM reports_project GROUP BY owner_id"
)


def add_triggers(apps, schema_editor):
    migration_ops.install_triggers(
        schema_editor,
        postgresql=POSTGRESQL_TRIGGERS,
        sqlite=SQLITE_TRIGGERS,
        fill=["DELETE FROM reports_ownerprojectcount", BACKFILL],
    )


def drop_triggers(apps, schema_editor):
    migration_ops.drop_triggers(schema_editor, postgresql=POSTGRESQL_DROP, sqlite=SQLITE_DROP)


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("reports", "0012_project_created_id_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="OwnerProjectCount",
            fields=[
                (
                    "owner",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.DB_CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("project_count", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(add_triggers, drop_triggers, elidable=False),
    ]
