from django import forms

from reports.models import Report


class ReportPasswordForm(forms.Form):
    """The password asked for by a password-protected report page."""

    password = forms.CharField(
        label="Password",
        max_length=Report.PASSWORD_MAX_LENGTH,
        strip=False,
        widget=forms.PasswordInput(attrs={"autofocus": True}),
    )
