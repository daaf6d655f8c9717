"""Single sign-on by OpenID Connect (allauth's socialaccount), and ACCOUNTS_PASSWORD_LOGIN=0.

Who may come in: whoever the provider (OIDC_ISSUER) lets sign in gets an account at the first
sign-in, whatever ACCOUNTS_REGISTRATION says, as with LDAP: the operator chose the provider, and
ACCOUNTS_REGISTRATION governs only sign-up with a password on this site.

Which account: the provider's subject (`sub`) once connected; before that, an address the provider
calls verified (`email_verified`) that a local account has *confirmed* too. An address a local
account has not confirmed may have been typed by someone else, who knows that account's password
and may hold keys made with it: the provider's user would walk into an account a stranger also
controls. Such a sign-in is not connected; allauth asks for another address instead.
"""

from allauth.account.models import EmailAddress
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter, _build_apps_from_settings
from allauth.socialaccount.models import SocialApp, SocialLogin
from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

# allauth's pages that take or give a password, refused with ACCOUNTS_PASSWORD_LOGIN=0 (the sign-in
# form only when posted: its page shows the single sign-on button). A password set or changed
# then could sign in nowhere; the one an account had is kept for when password sign-in returns.
PASSWORD_PAGES = {
    "account_signup",
    "account_change_password",
    "account_set_password",
    "account_reset_password",
    "account_reset_password_done",
    "account_reset_password_from_key",
    "account_reset_password_from_key_done",
}


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest, sociallogin: SocialLogin) -> bool:
        return True

    def list_apps(self, request: HttpRequest | None, provider=None, client_id=None) -> list[SocialApp]:
        """The provider of the OIDC_* variables only: allauth would also query its SocialApp table at
        every page showing the button, for apps this site never configures there."""
        apps = _build_apps_from_settings(provider=provider, client_id=client_id)
        return [app for provider_apps in apps.values() for app in provider_apps]

    def authenticate_by_email(self, sociallogin: SocialLogin) -> tuple[AbstractUser, str] | None:
        found = super().authenticate_by_email(sociallogin)  # the provider's verified addresses only
        if found is None:
            return None
        user, email = found
        if EmailAddress.objects.filter(user=user, email__iexact=email, verified=True).exists():
            return found
        return None


def password_login_off_page(request: HttpRequest) -> HttpResponse:
    """What a password page answers when only single sign-on is offered: which button to use instead."""
    return render(request, "account/password_login_off.html", status=403)


class PasswordLoginOffMiddleware:
    """With ACCOUNTS_PASSWORD_LOGIN=0, allauth's password pages answer that passwords are not taken here.

    The other password sign-ins (the admin's, /s/login, anything calling authenticate()) are
    refused by accounts.backends.SignInLimitGuard, and answer in their own shapes.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        if settings.ACCOUNTS_PASSWORD_LOGIN:
            return None
        name = request.resolver_match.url_name if request.resolver_match else None
        if name in PASSWORD_PAGES or (name == "account_login" and request.method not in ("GET", "HEAD")):
            return password_login_off_page(request)
        return None
