from django import forms
from django.conf import settings
from django.utils.translation import get_language, gettext, gettext_lazy

from accounts import invitations


class InvitationForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("Email address"), max_length=254)
    # The invited person has no account, hence no saved language yet: staff say which one the mail is in.
    # Left out of a post: the page's language.
    language = forms.ChoiceField(label=gettext_lazy("Language of the mail"), choices=settings.LANGUAGES, required=False)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].initial = get_language()

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        if invitations.has_account(email):
            # Only staff see this form: telling them is no enumeration.
            raise forms.ValidationError(gettext("An account already has this address."))
        return email

    def clean_language(self) -> str:
        return self.cleaned_data["language"] or get_language()
