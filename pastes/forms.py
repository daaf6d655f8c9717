"""The browser's paste form (/new, /<id>/edit, /<id>/fork).

The form only renders the fields and reads what a browser posts: the values are then
checked by the API's own serializers (pastes.serializers) and written by the same
services, so a paste made on the page obeys the same limits, quota and wording as one
made through the API.
"""

from functools import lru_cache

from django import forms
from django.utils.translation import gettext_lazy as _
from pygments.lexers import get_all_lexers

from pastes.file_forms import add_more_files, files_api_data
from pastes.models import FILENAME_MAX_LENGTH, NAME_MAX_LENGTH, Paste
from pastes.serializers import EXPIRATION_LABELS, EXPOSURE_VALUES, PASSWORD_MAX_LENGTH

KEEP = ""  # the edit form's "keep as it is" choice for the expiration


@lru_cache(maxsize=1)
def syntax_choices() -> list[tuple[str, str]]:
    """Every Pygments language by its display name, valued by its first alias (what `syntax` stores)."""
    languages = sorted(
        ((aliases[0], name) for name, aliases, _patterns, _mimetypes in get_all_lexers() if aliases),
        key=lambda choice: choice[1].casefold(),
    )
    return [("", "Detect from the content"), *languages]


class PasteForm(forms.Form):
    # Lengths and choices are checked by the API's serializer; these only shape the inputs.
    name = forms.CharField(max_length=NAME_MAX_LENGTH, required=False, strip=False)
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false"}), required=False, strip=False
    )
    syntax = forms.ChoiceField(choices=syntax_choices, required=False, label="Syntax")
    expiration = forms.ChoiceField(choices=[(label, label) for label in EXPIRATION_LABELS], initial="Never")
    exposure = forms.ChoiceField(
        choices=[(value, value) for value in EXPOSURE_VALUES],
        initial=Paste.Exposure.PUBLIC,
        help_text="public: listed on your account; unlisted: anyone with the link; private: only you.",
    )
    burn_after_read = forms.BooleanField(
        required=False, label="Burn after read", help_text="Deleted by its first reader."
    )
    encrypted = forms.BooleanField(
        required=False,
        label="Encrypt in my browser",
        help_text="End-to-end: your browser encrypts the text (AES-GCM, 256-bit key) and puts the key only in "
        "the link after #, which browsers never send; the server stores what it cannot read. Whoever has "
        "the whole link can read it; lose the link and nobody can. Needs JavaScript.",
    )
    discussion = forms.BooleanField(
        required=False,
        label=_("Open a discussion"),
        help_text=_("Readers may comment under the paste (encrypted with it when it is encrypted)."),
    )
    password = forms.CharField(
        required=False,
        strip=False,
        max_length=PASSWORD_MAX_LENGTH,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        label="Password (optional)",
        help_text="Readers must type it before they see the paste; stored hashed.",
    )
    remove_password = forms.BooleanField(required=False, label="Remove the password")

    filename = forms.CharField(
        max_length=FILENAME_MAX_LENGTH,
        required=False,
        strip=False,
        label="File (optional)",
        help_text="The first file's name, e.g. main.py; its extension sets the syntax. Needed with several files.",
    )

    def __init__(
        self,
        *args: object,
        editing: bool = False,
        has_password: bool = False,
        more_files: int = 0,
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.editing = editing
        add_more_files(self, more_files)
        self.fields["name"].widget.attrs.update({"required": True, "minlength": 2, "autocomplete": "off"})
        self.fields["content"].widget.attrs["required"] = True
        if editing:
            # An edit keeps the expiry unless a new one is chosen (which then runs from now).
            self.fields["expiration"].choices = [(KEEP, "Keep the current expiry"), *self.fields["expiration"].choices]
            self.fields["expiration"].initial = KEEP
            self.fields["expiration"].required = False
        if editing and has_password:
            self.fields["password"].label = "New password (optional)"
            self.fields["password"].help_text = "Leave empty to keep the current password."
        else:
            del self.fields["remove_password"]

    def api_data(self) -> dict:
        """The posted values as the API's JSON body would carry them."""
        data = files_api_data(self, dict(self.cleaned_data))
        # Browsers send a textarea's line breaks as CRLF (HTML spec); the paste keeps the text's own.
        if "content" in data:
            data["content"] = data["content"].replace("\r\n", "\n")
        if not data.get("expiration"):
            data.pop("expiration", None)
        # An empty password keeps the current one (none, on a new paste); removing it is a checkbox.
        if data.pop("remove_password", False):
            data["password"] = ""
        elif not data.get("password"):
            data.pop("password", None)
        return data
