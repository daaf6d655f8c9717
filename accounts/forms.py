from django import forms
from django.utils.translation import gettext, gettext_lazy

from accounts import invitations


class InvitationForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("Email address"), max_length=254)

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        if invitations.has_account(email):
            # Only staff see this form: telling them is no enumeration.
            raise forms.ValidationError(gettext("An account already has this address."))
        return email
