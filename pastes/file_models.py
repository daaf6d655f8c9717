"""The files of a paste beyond its first, and the revisions an edit keeps (issue 47).

The first file lives on the Paste row itself (content, syntax, filename), so reading a one-file
paste stays one query; PasteFile rows hold files 2… (position 2 up) and are read only when
Paste.file_count says there are some. A revision is a snapshot of the files as they were before
an edit, kept as JSON: it is only ever read whole, and never queried by what is inside.
"""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.utils import timezone

from pastes.models import FILENAME_MAX_LENGTH, SYNTAX_MAX_LENGTH, Paste


class PasteFile(models.Model):
    paste = models.ForeignKey(Paste, on_delete=models.CASCADE, related_name="more_files")
    position = models.PositiveSmallIntegerField(help_text="2 for the paste's second file, and so on.")
    filename = models.CharField(max_length=FILENAME_MAX_LENGTH)
    content = models.TextField()
    content_chars = models.GeneratedField(
        expression=Length("content"), output_field=models.PositiveIntegerField(), db_persist=True
    )
    syntax = models.CharField(max_length=SYNTAX_MAX_LENGTH, blank=True)

    class Meta:
        ordering = ["paste", "position"]
        constraints = [
            models.UniqueConstraint(fields=["paste", "position"], name="pastes_pastefile_unique_position"),
            models.UniqueConstraint(fields=["paste", "filename"], name="pastes_pastefile_unique_filename"),
            models.CheckConstraint(condition=Q(position__gte=2), name="pastes_pastefile_position_after_first"),
            models.CheckConstraint(condition=~Q(filename=""), name="pastes_pastefile_filename_not_empty"),
            models.CheckConstraint(condition=~Q(content=""), name="pastes_pastefile_content_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.filename} in {self.paste_id}"


class PasteRevision(models.Model):
    """The paste's files as they were before edit number `number`; `files` is null once removed."""

    paste = models.ForeignKey(Paste, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField(help_text="1 for the paste as first created, then one per edit.")
    created_at = models.DateTimeField(default=timezone.now, help_text="When this version was written.")
    name = models.CharField(max_length=100)
    # [{"filename", "content", "syntax"}, …]; null: the owner removed this revision's content.
    files = models.JSONField(null=True, blank=True)
    size = models.PositiveIntegerField(help_text="Characters of content over every file (counted by the quota).")
    changed = models.JSONField(default=list, help_text="Filenames the next version added, removed or changed.")

    class Meta:
        ordering = ["paste", "number"]
        constraints = [
            models.UniqueConstraint(fields=["paste", "number"], name="pastes_pasterevision_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="pastes_pasterevision_number_positive"),
        ]

    def __str__(self) -> str:
        return f"Revision {self.number} of {self.paste_id}"

    @property
    def removed(self) -> bool:
        return self.files is None
