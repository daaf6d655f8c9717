"""Signing in against an LDAP directory with Lstu's settings, through django-auth-ldap.

Lstu (`lib/Lstu.pm`) binds with `bind_dn`/`bind_pwd` (anonymously without them), searches
`user_tree` for `(&(<user_attr>=<login>)<user_filter>)`, binds as the entry found with the
password given, and refuses when any step fails. django-auth-ldap does the same with
AUTH_LDAP_USER_SEARCH; `django_settings()` turns Lstu's settings into that backend's.

config/settings.py imports this module only when LDAP_URI is set: it imports python-ldap, whose C
libraries a deployment without LDAP need not have.
"""

import ldap
from django_auth_ldap.config import LDAPSearch

BACKEND = "django_auth_ldap.backend.LDAPBackend"

# Django's user fields and the inetOrgPerson attributes they are copied from, at the first
# sign-in and again at each later one (AUTH_LDAP_ALWAYS_UPDATE_USER, on by default).
USER_ATTR_MAP = {"first_name": "givenName", "last_name": "sn", "email": "mail"}


def search_filter(user_attr: str, user_filter: str) -> str:
    """Lstu's search filter, with django-auth-ldap's placeholder for the (escaped) login."""
    extra = user_filter.strip()
    # Lstu's own example before 0.12 (`!(uid=ldap_user)`) lacked the outer parentheses.
    if extra and not extra.startswith("("):
        extra = f"({extra})"
    # The backend fills the placeholder with `%`-formatting, so a `%` of the operator's filter is doubled.
    return f"(&({user_attr}=%(user)s){extra.replace('%', '%%')})"


def django_settings(
    *,
    uri: str,
    user_tree: str,
    bind_dn: str,
    bind_password: str,
    user_attr: str,
    user_filter: str,
    start_tls: bool,
    timeout: float,
) -> dict[str, object]:
    """django-auth-ldap's settings (AUTH_LDAP_*) for Lstu's LDAP settings."""
    return {
        "AUTH_LDAP_SERVER_URI": uri,
        "AUTH_LDAP_BIND_DN": bind_dn,
        "AUTH_LDAP_BIND_PASSWORD": bind_password,
        "AUTH_LDAP_USER_SEARCH": LDAPSearch(user_tree, ldap.SCOPE_SUBTREE, search_filter(user_attr, user_filter)),
        "AUTH_LDAP_USER_ATTR_MAP": USER_ATTR_MAP,
        "AUTH_LDAP_START_TLS": start_tls,
        # A directory that does not answer must not hold a sign-in (and its thread) for minutes:
        # connecting, and then each operation, give up after `timeout` seconds; the backend then
        # logs the error and the sign-in fails as with a wrong password.
        "AUTH_LDAP_CONNECTION_OPTIONS": {ldap.OPT_NETWORK_TIMEOUT: timeout, ldap.OPT_TIMEOUT: timeout},
    }
