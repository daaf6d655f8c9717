"""LimitCounter moves from the shortener to common (reports and pastes count in it too).

State only: the table stays `shortener_limitcounter` (Meta.db_table), with its rows, index and
constraint; nothing is written to the database but the content type's new app label, so that
permissions given on it follow it. shortener 0015 removes the model from the shortener's state.
"""

from django.db import migrations, models


def rename_content_type(apps, schema_editor, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label=new, model="limitcounter").exists():
        ContentType.objects.using(db).filter(app_label=old, model="limitcounter").update(app_label=new)


def to_common(apps, schema_editor) -> None:
    rename_content_type(apps, schema_editor, "shortener", "common")


def to_shortener(apps, schema_editor) -> None:
    rename_content_type(apps, schema_editor, "common", "shortener")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("shortener", "0008_limit_counter"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LimitCounter",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("key", models.CharField(max_length=200, unique=True)),
                        ("count", models.PositiveIntegerField()),
                        ("expires_at", models.DateTimeField(db_index=True)),
                    ],
                    options={
                        "db_table": "shortener_limitcounter",
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("count__gte", 1)), name="shortener_limitcounter_count_positive"
                            )
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(to_common, to_shortener, elidable=True),
    ]
