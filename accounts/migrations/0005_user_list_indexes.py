"""Indexes for the admin's user list at 10⁵ users and more, on PostgreSQL only.

The admin searches `UPPER(username) LIKE UPPER('%…%') OR UPPER(email) LIKE …` (icontains on
UserAdmin.search_fields): without them a scan of auth_user. The pg_trgm GIN index over each
UPPER(column) serves its half of the OR (a BitmapOr of the two). The filters keep few rows
(staff, superusers, disabled users) and the list is ordered by username: a partial index of the
usernames of each serves "the first 50 staff by name" without reading the others.

auth_user is Django's table, not a model of this app: plain SQL, built CONCURRENTLY (people keep
signing up meanwhile), as pastes 0007 builds its own. SQLite, sized for 10⁵ rows, keeps its scan
(tens of ms) and gets none of them.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEXES = {
    "accounts_user_username_trgm": "USING gin (UPPER(username) gin_trgm_ops)",
    "accounts_user_email_trgm": "USING gin (UPPER(email) gin_trgm_ops)",
    "accounts_user_staff_username": "(username) WHERE is_staff",
    "accounts_user_superuser_username": "(username) WHERE is_superuser",
    "accounts_user_inactive_username": "(username) WHERE NOT is_active",
}


def create_indexes(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    table = schema_editor.quote_name(apps.get_model("auth", "User")._meta.db_table)
    for name, definition in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {table} {definition}")


def drop_indexes(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("accounts", "0004_avatar"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(create_indexes, drop_indexes),
    ]
