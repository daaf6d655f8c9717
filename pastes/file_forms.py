"""The paste form's extra files (issue 47): slots for files 2… without any JavaScript.

Each slot is a filename and a content field (filename_2, content_2, …), placed after the first
file's fields. "Add another file" posts the form back with one slot more; a slot left empty is
dropped. With a filename or a second file, the form sends `files` to the API, else `content`
as before, so a one-file paste made on the page is exactly what it was.
"""

from django import forms
from django.utils.translation import gettext_lazy as _

from pastes.files import MAX_FILES
from pastes.models import FILENAME_MAX_LENGTH

ADD_FILE = "add_file"


def slots_posted(data: dict) -> int:
    """How many extra file slots a posted form had (content_2, content_3, …), one more if asked."""
    count = 0
    while f"content_{count + 2}" in data and count < MAX_FILES - 1:
        count += 1
    if ADD_FILE in data and count < MAX_FILES - 1:
        count += 1
    return count


def add_more_files(form: forms.Form, count: int) -> None:
    names = list(form.fields)
    extra = []
    for number in range(2, count + 2):
        form.fields[f"filename_{number}"] = forms.CharField(
            max_length=FILENAME_MAX_LENGTH,
            required=False,
            strip=False,
            label=_("File %(number)s") % {"number": number},
        )
        form.fields[f"content_{number}"] = forms.CharField(
            widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "data-e2e-sealed": ""}),
            required=False,
            strip=False,
            label=_("Text of file %(number)s") % {"number": number},
        )
        form.fields[f"filename_{number}"].widget.attrs["data-e2e-sealed"] = ""
        extra += [f"filename_{number}", f"content_{number}"]
    form.fields["filename"].widget.attrs.update({"autocomplete": "off", "data-e2e-sealed": ""})
    base = [name for name in names if name != "filename"]
    after_content = base.index("content") + 1
    form.order_fields([*base[:after_content], "filename", *extra, *base[after_content:]])


def more_files_initial(files: list[dict]) -> dict:
    """Initial values of the slots for a paste's files 2…."""
    initial = {}
    for number, file in enumerate(files[1:], start=2):
        initial[f"filename_{number}"] = file["filename"]
        initial[f"content_{number}"] = file["content"]
    return initial


def files_api_data(form: forms.Form, data: dict) -> dict:
    """The cleaned form as the API's body: `files` when there is a filename or a second file."""
    slots = []
    number = 2
    while f"content_{number}" in data:
        filename, content = data.pop(f"filename_{number}", ""), data.pop(f"content_{number}", "")
        if filename or content:
            slots.append({"filename": filename, "content": content.replace("\r\n", "\n")})
        number += 1
    filename = data.pop("filename", "")
    # An edit of a paste that has files sends them all, so that emptying a slot removes its file.
    if not slots and not filename and not getattr(form, "sends_files", False):
        return data
    first = {"filename": filename, "content": data.pop("content", "").replace("\r\n", "\n")}
    if data.get("syntax"):
        first["syntax"] = data.pop("syntax")
    else:
        data.pop("syntax", None)
    data["files"] = [first, *slots]
    return data
