"""LimitCounter is common's now (common 0001): the shortener's state lets it go, the table stays."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("shortener", "0014_apikey_scope_and_expiry"),
        ("common", "0001_limit_counter"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="LimitCounter")]),
    ]
