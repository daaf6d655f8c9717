"""Several files per paste and revisions (issue 47).

The paste row gains the first file's `filename` and a `file_count` (both with constant defaults:
on PostgreSQL adding them rewrites nothing and holds its lock for a moment; `file_count`'s CHECK
is validated afterwards, without blocking writes, so not atomic); files 2… and the revisions are
new tables.
"""

import django.db.models.deletion
import django.db.models.functions.text
import django.utils.timezone
from django.db import migrations, models

from common.migration_ops import AddFieldCheckValidatedLater


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("pastes", "0009_paste_discussion_and_comments"),
    ]

    operations = [
        AddFieldCheckValidatedLater(
            model_name="paste",
            name="file_count",
            field=models.PositiveSmallIntegerField(default=1, help_text="How many files the paste holds."),
        ),
        migrations.AddField(
            model_name="paste",
            name="filename",
            field=models.CharField(
                blank=True, help_text="The first file's name; empty: made from the name.", max_length=255
            ),
        ),
        migrations.CreateModel(
            name="PasteFile",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.PositiveSmallIntegerField(help_text="2 for the paste's second file, and so on.")),
                ("filename", models.CharField(max_length=255)),
                ("content", models.TextField()),
                (
                    "content_chars",
                    models.GeneratedField(
                        db_persist=True,
                        expression=django.db.models.functions.text.Length("content"),
                        output_field=models.PositiveIntegerField(),
                    ),
                ),
                ("syntax", models.CharField(blank=True, max_length=50)),
                (
                    "paste",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="more_files", to="pastes.paste"
                    ),
                ),
            ],
            options={
                "ordering": ["paste", "position"],
                "constraints": [
                    models.UniqueConstraint(fields=("paste", "position"), name="pastes_pastefile_unique_position"),
                    models.UniqueConstraint(fields=("paste", "filename"), name="pastes_pastefile_unique_filename"),
                    models.CheckConstraint(
                        condition=models.Q(("position__gte", 2)), name="pastes_pastefile_position_after_first"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("filename", ""), _negated=True), name="pastes_pastefile_filename_not_empty"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("content", ""), _negated=True), name="pastes_pastefile_content_not_empty"
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="PasteRevision",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "number",
                    models.PositiveIntegerField(help_text="1 for the paste as first created, then one per edit."),
                ),
                (
                    "created_at",
                    models.DateTimeField(default=django.utils.timezone.now, help_text="When this version was written."),
                ),
                ("name", models.CharField(max_length=100)),
                ("files", models.JSONField(blank=True, null=True)),
                (
                    "size",
                    models.PositiveIntegerField(
                        help_text="Characters of content over every file (counted by the quota)."
                    ),
                ),
                (
                    "changed",
                    models.JSONField(default=list, help_text="Filenames the next version added, removed or changed."),
                ),
                (
                    "paste",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="revisions", to="pastes.paste"
                    ),
                ),
            ],
            options={
                "ordering": ["paste", "number"],
                "constraints": [
                    models.UniqueConstraint(fields=("paste", "number"), name="pastes_pasterevision_unique_number"),
                    models.CheckConstraint(
                        condition=models.Q(("number__gte", 1)), name="pastes_pasterevision_number_positive"
                    ),
                ],
            },
        ),
    ]
