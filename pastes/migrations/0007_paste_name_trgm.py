"""A trigram index for the admin paste list's name search, on PostgreSQL only.

The Django admin searches names with `UPPER(name) LIKE UPPER('%…%')` (icontains): at 10⁶ pastes
a scan of the table (5.7 s measured). The pg_trgm GIN index over UPPER(name) serves that LIKE.
Built CONCURRENTLY (pastes stay writable meanwhile) and kept out of the model state, as the
reports' URL index is (reports 0008_scale): SQLite has no such index type and keeps the scan,
which at its 10⁵ pastes takes tens of ms.
"""

import django.contrib.postgres.indexes
import django.db.models.functions.text
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

from common.migration_ops import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("pastes", "0006_paste_encrypted_and_password")]

    operations = [
        TrigramExtension(),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                AddIndexConcurrently(
                    model_name="paste",
                    index=django.contrib.postgres.indexes.GinIndex(
                        django.contrib.postgres.indexes.OpClass(
                            django.db.models.functions.text.Upper("name"), name="gin_trgm_ops"
                        ),
                        name="pastes_paste_name_trgm",
                    ),
                    postgresql_only=True,
                ),
            ],
        ),
    ]
