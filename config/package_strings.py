"""Strings of installed packages that their own catalogs leave untranslated or in another register.

django-allauth's passkey form labels a field "Passwordless", which its Spanish catalog leaves in
English. Marked here, they go to the top-level catalog
(locale/), which Django consults before any package's, so the page follows our glossary.
Nothing imports this module: it exists for makemessages.
"""

from django.utils.translation import gettext_noop

PACKAGE_STRINGS = (
    gettext_noop("Passwordless"),  # allauth.mfa.webauthn.forms.AddWebAuthnForm.passwordless
)
