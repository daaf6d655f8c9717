"""Sending a browser to sign in and back: every page's sign-in redirect, and where the sign-in page may send it.

One sign-in page serves the whole site (settings.LOGIN_URL, allauth's); the shortener's pages keep
Lstu's /s/login and the admin its own (common/admin_site.py). Each is reached with
`?next=<the page asked for>`, and goes there afterwards only when `followable` says so.
"""

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.utils.encoding import iri_to_uri
from django.utils.http import MAX_URL_LENGTH, url_has_allowed_host_and_scheme


def followable(request: HttpRequest, url: str) -> bool:
    """Whether a sign-in page may send the browser to `url` afterwards: a URL of this site, not too long.

    Django's login views follow no `next` over MAX_URL_LENGTH (2,048) characters
    (url_has_allowed_host_and_scheme); the length is also measured percent-encoded, as the
    Location it becomes, which Django refuses past 16,384 (DisallowedRedirect): a `next` of
    2,000 four-byte characters is 24,000 there.
    """
    return (
        bool(url)
        and len(iri_to_uri(url)) <= MAX_URL_LENGTH
        and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    )


def sign_in_redirect(request: HttpRequest, next_url: str, login_url: str | None = None) -> HttpResponseRedirect:
    """A redirect to the sign-in page (the site's, unless `login_url`) that comes back to `next_url`.

    A `next_url` the sign-in page would not follow is left out, and the browser is signed in
    to the page it lands on by default: with a long query (`GET /s/stats?a0=1&…&a2999=1`) the
    redirect was longer than Django allows, a 400 (DisallowedRedirect) logged with a traceback.
    """
    login_url = login_url or resolve_url(settings.LOGIN_URL)
    if followable(request, next_url):
        return redirect_to_login(next_url, login_url)
    return HttpResponseRedirect(login_url)


def signed_in(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Django's login_required, to the site's sign-in page and through `sign_in_redirect`."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        return sign_in_redirect(request, request.get_full_path())

    return wrapper
