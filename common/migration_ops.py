"""Migration operations for indexes on tables that may hold millions of rows.

A plain CREATE INDEX locks the table against writes while it builds (minutes at 10⁶ rows), so
on PostgreSQL these build the index CONCURRENTLY, as django.contrib.postgres's
AddIndexConcurrently does; on SQLite, which has no such option and serves one instance's
embedded database, they fall back to the plain statement. `postgresql_only` skips other
backends altogether, for index types they lack (a pg_trgm GIN index): the index stays in the
migration state, so the models and migrations still agree. A migration using them needs
`atomic = False`.
"""

from django.db.migrations.operations import AddIndex, RemoveIndex
from django.db.models import Index


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
