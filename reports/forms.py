import re

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ErrorDetail

from reports.models import Report
from reports.serializers import ReportCreateSerializer


class ReportPasswordForm(forms.Form):
    """The password asked for by a password-protected report page."""

    password = forms.CharField(
        label=_("Password"),
        max_length=Report.PASSWORD_MAX_LENGTH,
        strip=False,
        widget=forms.PasswordInput(attrs={"autofocus": True}),
    )


class ReportCreateForm(forms.Form):
    """The browser's "analyse a URL" form; the API's create serializer decides what is valid."""

    url = forms.CharField(
        label=_("URL"),
        max_length=Report.URL_MAX_LENGTH,
        widget=forms.URLInput(attrs={"autofocus": True, "placeholder": "https://example.com/", "inputmode": "url"}),
    )
    privacy = forms.TypedChoiceField(
        label=_("Who may see the report page"),
        choices=[
            (Report.Privacy.PUBLIC, _("Anyone with the link")),
            (Report.Privacy.PRIVATE, _("Only me")),
            (Report.Privacy.PASSWORD, _("Anyone with the password")),
        ],
        coerce=int,
        initial=Report.Privacy.PUBLIC,
        widget=forms.RadioSelect,
    )
    password = forms.CharField(
        label=_("Password"),
        help_text=_("Only for a password-protected report."),
        max_length=Report.PASSWORD_MAX_LENGTH,
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        # The same rules as POST /api/v1/reports, told in the page's words and language: the API's
        # messages stay English and name its parameters ("privacy is 2").
        serializer = ReportCreateSerializer(data=cleaned)
        if not serializer.is_valid():
            for field, messages in serializer.errors.items():
                for message in messages:
                    self.add_error(field if field in self.fields else None, _page_message(field, message))
            return cleaned
        return serializer.validated_data


# The serializer's errors the form's own fields have not already caught, by (field, code).
PAGE_MESSAGES = {
    ("url", "invalid_url"): _("Enter a web address starting with http:// or https://."),
    ("url", "url_with_credentials"): _("The web address must not contain a user name or password."),
    ("password", "required"): _("Enter a password: the report is password-protected."),
}
# "The url points to a loopback address (127.0.0.1); …": the address is the last parenthesis before ";".
REFUSED_ADDRESS = re.compile(r"\(([^()]*)\);")


def _page_message(field: str, message: ErrorDetail) -> str:
    if (field, message.code) in PAGE_MESSAGES:
        return str(PAGE_MESSAGES[field, message.code])
    if message.code == "private":
        found = REFUSED_ADDRESS.search(message)
        address = found.group(1) if found else ""
        return gettext(
            "This web address leads to a private or reserved address (%(address)s): only pages on public "
            "addresses can be analysed."
        ) % {"address": address}
    return str(message)
