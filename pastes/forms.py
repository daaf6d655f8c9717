"""The browser's paste form (/new, /<id>/edit, /<id>/fork).

The form only renders the fields and reads what a browser posts: the values are then
checked by the API's own serializers (pastes.serializers) and written by the same
services, so a paste made on the page obeys the same limits, quota and wording as one
made through the API.
"""

from functools import lru_cache

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from pygments.lexers import get_all_lexers

from pastes.file_forms import add_more_files, files_api_data
from pastes.models import FILENAME_MAX_LENGTH, NAME_MAX_LENGTH, Paste
from pastes.serializers import EXPIRATION_LABELS, EXPOSURE_VALUES, PASSWORD_MAX_LENGTH

KEEP = ""  # the edit form's "keep as it is" choice for the expiration

# The API's English values (what is posted and stored) shown in the reader's language. The
# templates translate a stored exposure with {% translate paste.exposure context "exposure" %}.
EXPIRATION_NAMES = {
    "10 minutes": pgettext_lazy("expiration", "10 minutes"),
    "1 hour": pgettext_lazy("expiration", "1 hour"),
    "1 day": pgettext_lazy("expiration", "1 day"),
    "1 week": pgettext_lazy("expiration", "1 week"),
    "2 weeks": pgettext_lazy("expiration", "2 weeks"),
    "1 month": pgettext_lazy("expiration", "1 month"),
    "6 months": pgettext_lazy("expiration", "6 months"),
    "1 year": pgettext_lazy("expiration", "1 year"),
    "Never": pgettext_lazy("expiration", "Never"),
}
EXPOSURE_NAMES = {
    "public": pgettext_lazy("exposure", "public"),
    "unlisted": pgettext_lazy("exposure", "unlisted"),
    "private": pgettext_lazy("exposure", "private"),
}


@lru_cache(maxsize=1)
def syntax_choices() -> list[tuple[str, str]]:
    """Every Pygments language by its display name, valued by its first alias (what `syntax` stores)."""
    languages = sorted(
        ((aliases[0], name) for name, aliases, _patterns, _mimetypes in get_all_lexers() if aliases),
        key=lambda choice: choice[1].casefold(),
    )
    return [("", _("Detect from the content")), *languages]


class PasteForm(forms.Form):
    # Lengths and choices are checked by the API's serializer; these only shape the inputs.
    name = forms.CharField(
        max_length=NAME_MAX_LENGTH, required=False, strip=False, label=pgettext_lazy("pastes", "Name")
    )
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false"}),
        required=False,
        strip=False,
        label=pgettext_lazy("pastes", "Content"),
    )
    syntax = forms.ChoiceField(choices=syntax_choices, required=False, label=pgettext_lazy("pastes", "Syntax"))
    expiration = forms.ChoiceField(
        choices=[(label, EXPIRATION_NAMES[label]) for label in EXPIRATION_LABELS],
        initial="Never",
        label=pgettext_lazy("pastes", "Expiration"),
    )
    exposure = forms.ChoiceField(
        choices=[(value, EXPOSURE_NAMES[value]) for value in EXPOSURE_VALUES],
        label=pgettext_lazy("pastes", "Exposure"),
        initial=Paste.Exposure.PUBLIC,
        help_text=_("public: listed on your account; unlisted: anyone with the link; private: only you."),
    )
    burn_after_read = forms.BooleanField(
        required=False, label=pgettext_lazy("pastes", "Burn after read"), help_text=_("Deleted by its first reader.")
    )
    encrypted = forms.BooleanField(
        required=False,
        label=_("Encrypt in my browser"),
        help_text=_(
            "End-to-end: your browser encrypts the text (AES-GCM, 256-bit key) and puts the key only in "
            "the link after #, which browsers never send; the server stores what it cannot read. Whoever has "
            "the whole link can read it; lose the link and nobody can. Needs JavaScript."
        ),
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
        label=_("Password (optional)"),
        help_text=_("Readers must type it before they see the paste; stored hashed."),
    )
    remove_password = forms.BooleanField(required=False, label=_("Remove the password"))

    filename = forms.CharField(
        max_length=FILENAME_MAX_LENGTH,
        required=False,
        strip=False,
        label=_("File (optional)"),
        help_text=_("The first file's name, e.g. main.py; its extension sets the syntax. Needed with several files."),
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
            self.fields["expiration"].choices = [
                (KEEP, _("Keep the current expiry")),
                *self.fields["expiration"].choices,
            ]
            self.fields["expiration"].initial = KEEP
            self.fields["expiration"].required = False
        if editing and has_password:
            self.fields["password"].label = _("New password (optional)")
            self.fields["password"].help_text = _("Leave empty to keep the current password.")
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
