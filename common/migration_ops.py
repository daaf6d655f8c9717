"""Migration operations for indexes on tables that may hold millions of rows.

A plain CREATE INDEX locks the table against writes while it builds (minutes at 10⁶ rows), so
on PostgreSQL these build the index CONCURRENTLY, as django.contrib.postgres's
AddIndexConcurrently does; on SQLite, which has no such option and serves one instance's
embedded database, they fall back to the plain statement. `postgresql_only` skips other
backends altogether, for index types they lack (a pg_trgm GIN index): the index stays in the
migration state, so the models and migrations still agree. A migration using them needs
`atomic = False`. The constraint and column operations at the end do the same for CHECKs and
partial unique indexes; `install_triggers` and `drop_triggers` make and remove the triggers that
keep a table of counts.
"""

import copy
import time
from contextlib import contextmanager
from functools import cached_property

from django.db import OperationalError, transaction
from django.db.migrations.operations import AddConstraint, AddField, AddIndex, RemoveIndex
from django.db.migrations.operations.base import Operation
from django.db.models import Index, UniqueConstraint


def _concurrently(schema_editor: object) -> bool:
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return False
    if connection.in_atomic_block:
        raise RuntimeError("Indexes are built concurrently outside a transaction: set atomic = False on the migration.")
    return True


class AddIndexConcurrently(AddIndex):
    def __init__(self, model_name: str, index: Index, *, postgresql_only: bool = False) -> None:
        super().__init__(model_name, index)
        self.postgresql_only = postgresql_only

    def deconstruct(self) -> tuple[str, list, dict]:
        name, args, kwargs = super().deconstruct()
        if self.postgresql_only:
            kwargs["postgresql_only"] = True
        return name, args, kwargs

    def database_forwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        if self.postgresql_only and schema_editor.connection.vendor != "postgresql":
            return
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        if _concurrently(schema_editor):
            schema_editor.add_index(model, self.index, concurrently=True)
        else:
            schema_editor.add_index(model, self.index)

    def database_backwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        if self.postgresql_only and schema_editor.connection.vendor != "postgresql":
            return
        model = from_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        if _concurrently(schema_editor):
            schema_editor.remove_index(model, self.index, concurrently=True)
        else:
            schema_editor.remove_index(model, self.index)


class RemoveIndexConcurrently(RemoveIndex):
    def database_forwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        model = from_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        index = from_state.models[app_label, self.model_name_lower].get_index_by_name(self.name)
        if _concurrently(schema_editor):
            schema_editor.remove_index(model, index, concurrently=True)
        else:
            schema_editor.remove_index(model, index)

    def database_backwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        index = to_state.models[app_label, self.model_name_lower].get_index_by_name(self.name)
        if _concurrently(schema_editor):
            schema_editor.add_index(model, index, concurrently=True)
        else:
            schema_editor.add_index(model, index)


# --- Constraints and columns on large tables ---------------------------------------------------
#
# Inside one transaction, a lock taken by ALTER TABLE (ACCESS EXCLUSIVE: no reads, no writes) is
# held until the migration ends, so a CHECK validated there, or an index built there, stops the
# table for as long as its scan takes (14-24 s at 10⁶ rows, docs/deployment.md "Upgrading"). In a
# migration with `atomic = False` each statement below commits on its own: the ALTER TABLE takes
# its lock for a moment, and the scan runs under a lock that lets reads and writes go on
# (VALIDATE CONSTRAINT: SHARE UPDATE EXCLUSIVE; CREATE INDEX CONCURRENTLY). The schema reached is
# the one the plain operations make: same names, same definitions, every constraint validated.
# Other backends (SQLite) run the plain operation.


def _quote(schema_editor: object, name: str) -> str:
    return schema_editor.quote_name(name)


def _validate(schema_editor: object, table: str, name: str) -> None:
    schema_editor.execute(
        f"ALTER TABLE {_quote(schema_editor, table)} VALIDATE CONSTRAINT {_quote(schema_editor, name)}"
    )


def add_foreign_keys_not_valid(schema_editor: object, table: str, *, then: str | None = None) -> None:
    """Add now the foreign keys of `table` a CreateModel left for the migration's end, NOT VALID, then validate them.

    Added at the end (Django's deferred SQL) to a table just filled, a foreign key checks every
    row under a lock that stops writes to the table it references too (0.45 s for 10⁶ daily
    visits against the links). `then` runs between the two: once the key is there (NOT VALID,
    it holds for every write from then on), it can remove the rows whose parent went while the
    table was filled, which would fail the validation. PostgreSQL, in a migration with
    `atomic = False`.
    """
    if not _concurrently(schema_editor):
        return
    template = schema_editor.sql_create_fk
    for statement in list(schema_editor.deferred_sql):
        if getattr(statement, "template", None) == template and statement.references_table(table):
            schema_editor.execute(f"{statement} NOT VALID")
            if then:
                schema_editor.execute(then)
            schema_editor.execute(
                f"ALTER TABLE {_quote(schema_editor, table)} VALIDATE CONSTRAINT {statement.parts['name']}"
            )
            schema_editor.deferred_sql.remove(statement)


class AddCheckConstraintNotValid(AddConstraint):
    """AddConstraint of a CheckConstraint: added NOT VALID (a moment's lock), then validated without blocking writes."""

    def database_forwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        if not _concurrently(schema_editor):
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        schema_editor.execute(f"{self.constraint.create_sql(model, schema_editor)} NOT VALID")
        _validate(schema_editor, model._meta.db_table, self.constraint.name)


class AddFieldCheckValidatedLater(AddField):
    """AddField of a column with a CHECK of its own (PositiveIntegerField's `>= 0`).

    ADD COLUMN … CHECK scans the table under ACCESS EXCLUSIVE. Here the column is added without
    it (no scan: a new column's default is stored once, not written to every row), then the CHECK
    is added NOT VALID under PostgreSQL's own name for a column check (`<table>_<column>_check`,
    what the inline CHECK gets) and validated.
    """

    def database_forwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        to_model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, to_model):
            return
        field = to_model._meta.get_field(self.name)
        check = field.db_parameters(connection=schema_editor.connection)["check"]
        if not check or not _concurrently(schema_editor):
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        model = from_state.apps.get_model(app_label, self.model_name)
        unchecked = copy.copy(field)
        unchecked.db_check = lambda connection: None
        if not self.preserve_default:
            unchecked.default = self.field.default
        schema_editor.add_field(model, unchecked)
        table, column = model._meta.db_table, field.column
        name = f"{table}_{column}_check"
        assert len(name) <= 63, f"{name} is longer than PostgreSQL's names: it would be truncated"
        schema_editor.execute(
            f"ALTER TABLE {_quote(schema_editor, table)} ADD CONSTRAINT {_quote(schema_editor, name)} "
            f"CHECK ({check}) NOT VALID"
        )
        _validate(schema_editor, table, name)


class ReplaceUniqueConstraintConcurrently(Operation):
    """RemoveConstraint then AddConstraint of a conditional UniqueConstraint (a partial unique index) of the same name.

    On PostgreSQL the new index is built CONCURRENTLY under a temporary name while the old one
    still holds, then the old one is dropped CONCURRENTLY and the new one renamed: uniqueness is
    enforced throughout. The new condition must cover no more rows than the old one (it only adds
    conditions), or rows the old index allowed could make the build fail.
    """

    reduces_to_sql = False

    def __init__(self, model_name: str, constraint: UniqueConstraint) -> None:
        self.model_name = model_name
        self.constraint = constraint

    @cached_property
    def model_name_lower(self) -> str:
        return self.model_name.lower()

    def deconstruct(self) -> tuple[str, list, dict]:
        return self.__class__.__name__, [], {"model_name": self.model_name, "constraint": self.constraint}

    def state_forwards(self, app_label: str, state: object) -> None:
        state.remove_constraint(app_label, self.model_name_lower, self.constraint.name)
        state.add_constraint(app_label, self.model_name_lower, self.constraint)

    def _swap(self, schema_editor: object, model: object, old: UniqueConstraint, new: UniqueConstraint) -> None:
        if not _concurrently(schema_editor):
            schema_editor.remove_constraint(model, old)
            schema_editor.add_constraint(model, new)
            return
        assert new.condition is not None, (
            "only a conditional UniqueConstraint is an index that can be built CONCURRENTLY"
        )
        temporary = copy.copy(new)
        temporary.name = f"{new.name[:55]}_swap"
        created = str(temporary.create_sql(model, schema_editor))
        assert created.startswith("CREATE UNIQUE INDEX "), created
        schema_editor.execute(created.replace("CREATE UNIQUE INDEX ", "CREATE UNIQUE INDEX CONCURRENTLY ", 1))
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {_quote(schema_editor, old.name)}")
        schema_editor.execute(
            f"ALTER INDEX {_quote(schema_editor, temporary.name)} RENAME TO {_quote(schema_editor, new.name)}"
        )

    def database_forwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        old = from_state.models[app_label, self.model_name_lower].get_constraint_by_name(self.constraint.name)
        self._swap(schema_editor, model, old, self.constraint)

    def database_backwards(self, app_label: str, schema_editor: object, from_state: object, to_state: object) -> None:
        model = from_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        old = to_state.models[app_label, self.model_name_lower].get_constraint_by_name(self.constraint.name)
        # Back to the old, wider condition: rows written since may break it, as any narrowing undone would.
        schema_editor.remove_constraint(model, self.constraint)
        schema_editor.add_constraint(model, old)

    def describe(self) -> str:
        return f"Replace constraint {self.constraint.name} on model {self.model_name} (concurrently)"

    @property
    def migration_name_fragment(self) -> str:
        return f"{self.model_name_lower}_{self.constraint.name.lower()}"


# --- Counts kept by triggers, filled without a long lock -----------------------------------------
#
# A count kept by a trigger (a live-link count, ranking buckets, tallies) must start from a count
# of the rows already there, with no row written between the counting and the trigger's start,
# or it is off for good. Counting 10⁶ rows under a lock that stops writers stopped them for
# 10 to 30 s. Here the trigger starts first, guarded by a watermark: it counts only the rows whose id
# is at or below it (0: none). Then the rows are counted a batch of ids at a time, each batch in a
# transaction of its own that locks the table against writers (SHARE ROW EXCLUSIVE, which waits
# for the writers already under way), counts the rows with ids above the watermark up to the
# batch's end, and moves the watermark there by replacing the trigger's function. After each
# commit the counts are exactly those of the rows at or below the watermark: a row there is
# counted once, by the batch that passed it or by the trigger of the write that changed it; a
# row above it is counted by neither until a batch passes it. The last batch, taken when no id
# lies beyond it, counts the rest and installs the function without a guard. The watermark is
# in the function's text, not a table, so a writer in a REPEATABLE READ transaction sees the
# current one too (a function's definition is read afresh, not from the transaction's snapshot).


# Ids per batch: 10⁴ links are counted in ~0.1 s on an idle machine, the longest a writer waits.
WATERMARK_BATCH = 10_000


def count_behind_a_watermark(schema_editor: object, *, table: str, install, count, batch: int | None = None) -> None:
    """Start a trigger guarded by a watermark, then count `table`'s rows into its counts a batch at a time.

    `install(cursor, watermark)` creates or replaces the trigger's functions (and the trigger, the
    first time) counting only rows with `id <= watermark`, or every row when it is None;
    `count(cursor, above, up_to)` adds to the counts the rows with `above < id <= up_to` (no upper
    bound when None). PostgreSQL only, in a migration with `atomic = False`.
    """
    connection = schema_editor.connection
    if connection.in_atomic_block:
        raise RuntimeError("The counts are filled in transactions of their own: set atomic = False on the migration.")
    batch = batch or WATERMARK_BATCH
    quoted = _quote(schema_editor, table)
    watermark = 0
    with _locked(connection, quoted) as cursor:
        install(cursor, watermark)
    while True:
        with _locked(connection, quoted) as cursor:
            cursor.execute(f"SELECT MIN(id), MAX(id) FROM {quoted} WHERE id > %s", [watermark])
            lowest, highest = cursor.fetchone()
            if lowest is None or highest < lowest + batch:
                count(cursor, watermark, None)
                install(cursor, None)
                return
            up_to = lowest + batch - 1
            count(cursor, watermark, up_to)
            install(cursor, up_to)
        watermark = up_to


# A lock requested waits for the writes under way, and every write that comes after waits behind
# it: behind a long write (an import), it is given up and asked for again a moment later, so that
# the writers are never held up longer than this.
LOCK_WAIT = "1s"


@contextmanager
def _locked(connection: object, quoted_table: str):
    """A transaction that holds `quoted_table` against writers, asked for until it is had."""
    from psycopg import errors

    while True:
        locked = False
        try:
            with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_WAIT}'")
                cursor.execute(f"LOCK TABLE {quoted_table} IN SHARE ROW EXCLUSIVE MODE")
                cursor.execute("SET LOCAL lock_timeout = 0")
                locked = True
                yield cursor
                return
        except OperationalError as error:
            if locked or not isinstance(error.__cause__, errors.LockNotAvailable):
                raise
        time.sleep(0.5)


def id_range(above: int, up_to: int | None) -> str:
    """The SQL condition of `count_behind_a_watermark`'s batch (integers only)."""
    condition = f"id > {int(above)}"
    return condition if up_to is None else f"{condition} AND id <= {int(up_to)}"


# --- Counts kept by triggers ---------------------------------------------------------------
# A table of counts (or numbers) kept by triggers on the tables it follows, whoever writes them:
# the reports' and projects' counts, each owner's stored characters, each owner's reports version.


def install_triggers(schema_editor: object, *, postgresql: str, sqlite: list[str], fill: list[str]) -> None:
    """Create the triggers (`postgresql`, one script; or `sqlite`, a statement each), then run `fill`.

    In one transaction: CREATE TRIGGER locks the tables it watches against writes until the end,
    so no row is written between the two unseen by both the triggers and the fill.
    """
    connection = schema_editor.connection
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        for statement in [*_for_vendor(connection, postgresql, sqlite), *fill]:
            cursor.execute(statement)


def drop_triggers(schema_editor: object, *, postgresql: str, sqlite: list[str]) -> None:
    """Drop what `install_triggers` created: `postgresql`, one script, or `sqlite`, a statement each."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for statement in _for_vendor(connection, postgresql, sqlite):
            cursor.execute(statement)


def _for_vendor(connection: object, postgresql: str, sqlite: list[str]) -> list[str]:
    return [postgresql] if connection.vendor == "postgresql" else sqlite
