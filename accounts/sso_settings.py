"""The OpenID Connect provider of settings.SOCIALACCOUNT_PROVIDERS, from the OIDC_* variables.

Imported by config/settings.py before Django is set up: nothing here touches models.
"""

from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

# The provider's id in allauth's URLs: the callback to register at the provider is
# <site>/accounts/oidc/sso/login/callback/.
PROVIDER_ID = "sso"


def sso_apps(*, issuer: str, name: str, client_id: str, secret: str) -> list[dict[str, object]]:
    """allauth's `APPS` of its openid_connect provider: one with OIDC_ISSUER, none without."""
    if not issuer:
        return []
    if not issuer.startswith(("https://", "http://")):
        raise ImproperlyConfigured(f"OIDC_ISSUER must be the provider's https:// address, not {issuer!r}.")
    if not client_id:
        raise ImproperlyConfigured("OIDC_CLIENT_ID (the client registered at the provider) must go with OIDC_ISSUER.")
    return [
        {
            "provider_id": PROVIDER_ID,
            "name": name,
            "client_id": client_id,
            "secret": secret,
            # allauth reads <issuer>/.well-known/openid-configuration, and checks the ID token's
            # issuer and signature against what it says.
            "settings": {"server_url": issuer},
        }
    ]


def form_targets(issuer: str) -> list[str]:
    """What the pages' CSP `form-action` must allow besides the site: the provider's origin.

    allauth's "Continue" posts to this site, which answers with a redirect to the provider's
    authorization page; browsers hold a form's redirects to `form-action` too, and stopped there.
    """
    if not issuer:
        return []
    parts = urlsplit(issuer)
    return [f"{parts.scheme}://{parts.netloc}"]
