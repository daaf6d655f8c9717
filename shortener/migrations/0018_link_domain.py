"""Several short domains (issue 46): a link's domain, codes unique per domain, and each domain's redirects.

Existing links go to the default domain (the first of SHORTENER_DOMAINS, or SHORTENER_HOST), which
is stored as "": the column's database default puts them there, which PostgreSQL (≥ 11) records
in the catalogue instead of rewriting the table, and which also covers a link inserted by a
process still running the old code during the deploy.

The code's unique constraint becomes (domain, code), and "same user, same URL" becomes per domain
too (owner, domain, url_digest), without locking the table against writes for the builds: on PostgreSQL the new unique index is built CONCURRENTLY, then attached as the
constraint (ADD CONSTRAINT … USING INDEX: a catalogue change), and only then is the old
constraint dropped, so codes are unique at every moment (the conditional one is a unique
index, built and dropped CONCURRENTLY). On SQLite (one instance's embedded
database) the table is rebuilt, which drops its tally triggers: they are dropped first and put
back with a fresh count afterwards, as migration 0010 asks.
"""

import importlib

from django.db import migrations, models, transaction
from django.db.migrations.operations.base import Operation

TALLIES = importlib.import_module("shortener.migrations.0010_link_rank_buckets_and_tallies")

TABLE = "shortener_shortlink"
# (old, new): codes unique per domain; "same user, same URL" gives back a link of the same domain.
DEDUPLICATED = models.Q(
    ("deleted_at__isnull", True),
    ("expires_at__isnull", True),
    ("is_custom", False),
    ("max_visits__isnull", True),
    ("password_hash", ""),
)
REPLACED = [
    (
        models.UniqueConstraint(fields=("code",), name="shortener_shortlink_code_uniq"),
        models.UniqueConstraint(fields=("domain", "code"), name="shortener_shortlink_domain_code_uniq"),
    ),
    (
        models.UniqueConstraint(
            condition=DEDUPLICATED, fields=("owner", "url_digest"), name="shortener_shortlink_owner_url_uniq"
        ),
        models.UniqueConstraint(
            condition=DEDUPLICATED,
            fields=("owner", "domain", "url_digest"),
            name="shortener_shortlink_owner_domain_url_uniq",
        ),
    ),
]


def drop_sqlite_tally_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        with schema_editor.connection.cursor() as cursor:
            for statement in TALLIES.SQLITE_DROP:
                cursor.execute(statement)


def add_sqlite_tally_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        with transaction.atomic(using=schema_editor.connection.alias):
            TALLIES.add_sqlite_triggers(schema_editor)


class ReplaceUniqueConcurrently(Operation):
    """RemoveConstraint(old) and AddConstraint(new) for each pair of REPLACED, each new one built before its old one goes."""

    reversible = True

    def state_forwards(self, app_label, state):
        for old, new in REPLACED:
            state.remove_constraint(app_label, "shortlink", old.name)
            state.add_constraint(app_label, "shortlink", new)

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        model = to_state.apps.get_model(app_label, "ShortLink")
        self._replace(schema_editor, model, [(new, old) for old, new in REPLACED])

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        # Back to one code per instance: fails (as it must) if a code is now on two domains.
        model = to_state.apps.get_model(app_label, "ShortLink")
        self._replace(schema_editor, model, list(REPLACED))

    @staticmethod
    def _replace(schema_editor, model, pairs):
        if schema_editor.connection.vendor != "postgresql":
            # The table as the target state has it: the new constraints in, the old ones gone.
            schema_editor._remake_table(model)
            return
        if schema_editor.connection.in_atomic_block:
            raise RuntimeError("The unique indexes are built concurrently: the migration must have atomic = False.")
        for add, drop in pairs:
            # IF NOT EXISTS would keep an INVALID index left by an interrupted build: drop it first.
            schema_editor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{add.name}"')
            create = str(add.create_sql(model, schema_editor))
            if add.condition is None:
                # A plain unique constraint: its index first, then attached (a catalogue change).
                columns = ", ".join(f'"{model._meta.get_field(name).column}"' for name in add.fields)
                schema_editor.execute(f'CREATE UNIQUE INDEX CONCURRENTLY "{add.name}" ON "{TABLE}" ({columns})')
                with transaction.atomic(using=schema_editor.connection.alias):
                    schema_editor.execute(
                        f'ALTER TABLE "{TABLE}" ADD CONSTRAINT "{add.name}" UNIQUE USING INDEX "{add.name}"'
                    )
            else:
                # A conditional one is a unique index on PostgreSQL (Django's own CREATE UNIQUE INDEX … WHERE).
                assert create.startswith("CREATE UNIQUE INDEX "), create
                schema_editor.execute(create.replace("CREATE UNIQUE INDEX ", "CREATE UNIQUE INDEX CONCURRENTLY ", 1))
            if drop.condition is None:
                schema_editor.execute(f'ALTER TABLE "{TABLE}" DROP CONSTRAINT "{drop.name}"')
            else:
                schema_editor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{drop.name}"')

    def describe(self):
        return "Codes unique per domain, and one generated link per owner, domain and URL (built concurrently)"

    @property
    def migration_name_fragment(self):
        return "unique_per_domain"


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run in a transaction (common/migration_ops.py).
    atomic = False

    dependencies = [
        ("shortener", "0017_link_rules_forwarding_previews"),
    ]

    operations = [
        migrations.CreateModel(
            name="ShortDomain",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("domain", models.CharField(blank=True, default="", max_length=253)),
                (
                    "root_redirect",
                    models.URLField(
                        blank=True,
                        help_text="Where GET / on this host sends browsers; empty: the main page.",
                        max_length=2048,
                    ),
                ),
                (
                    "not_found_redirect",
                    models.URLField(
                        blank=True,
                        help_text=(
                            "Where browsers asking for an unknown, deleted or expired code on this host go; "
                            "empty: the 404 page."
                        ),
                        max_length=2048,
                    ),
                ),
            ],
            options={
                "verbose_name": "short domain",
                "constraints": [
                    models.UniqueConstraint(fields=("domain",), name="shortener_shortdomain_domain_uniq"),
                ],
            },
        ),
        migrations.RunPython(drop_sqlite_tally_triggers, add_sqlite_tally_triggers),
        migrations.AddField(
            model_name="shortlink",
            name="domain",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="Host of the short URL; empty: the default domain (the first of SHORTENER_DOMAINS).",
                max_length=253,
            ),
        ),
        ReplaceUniqueConcurrently(),
        migrations.RunPython(add_sqlite_tally_triggers, drop_sqlite_tally_triggers),
    ]
