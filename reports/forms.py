from django import forms

from reports.models import Report
from reports.serializers import ReportCreateSerializer


class ReportPasswordForm(forms.Form):
    """The password asked for by a password-protected report page."""

    password = forms.CharField(
        label="Password",
        max_length=Report.PASSWORD_MAX_LENGTH,
        strip=False,
        widget=forms.PasswordInput(attrs={"autofocus": True}),
    )


class ReportCreateForm(forms.Form):
    """The browser's "analyse a URL" form; the API's create serializer decides what is valid."""

    url = forms.CharField(
        label="URL",
        max_length=Report.URL_MAX_LENGTH,
        widget=forms.URLInput(attrs={"autofocus": True, "placeholder": "https://example.com/", "inputmode": "url"}),
    )
    privacy = forms.TypedChoiceField(
        label="Who may see the report page",
        choices=[
            (Report.Privacy.PUBLIC, "Anyone with the link"),
            (Report.Privacy.PRIVATE, "Only me"),
            (Report.Privacy.PASSWORD, "Anyone with the password"),
        ],
        coerce=int,
        initial=Report.Privacy.PUBLIC,
        widget=forms.RadioSelect,
    )
    password = forms.CharField(
        label="Password",
        help_text="Only for a password-protected report.",
        max_length=Report.PASSWORD_MAX_LENGTH,
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        # The same rules, in the same words, as POST /api/v1/reports.
        serializer = ReportCreateSerializer(data=cleaned)
        if not serializer.is_valid():
            for field, messages in serializer.errors.items():
                for message in messages:
                    self.add_error(field if field in self.fields else None, str(message))
            return cleaned
        return serializer.validated_data
