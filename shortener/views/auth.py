"""Logging in and out with Django users and sessions."""

from django.conf import settings
from django.contrib import messages as flash
from django.contrib.auth import authenticate, login, logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts import two_factor
from accounts.stages import awaits_confirmation
from common.sign_in import sign_in_redirect
from shortener import messages
from shortener.errors import Failure
from shortener.messages import localized
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.responses import success
from shortener.services.admin_mode import is_admin
from shortener.views.base import safe_next


@endpoint("GET", "HEAD", "POST", csrf=True)
def login_view(request: HttpRequest) -> HttpResponse:
    if request.method in ("GET", "HEAD"):
        if wants_json(request):
            return success(user=request.user.get_username() or None, admin=is_admin(request))
        if request.user.is_authenticated:
            # One sign-in for every page: a signed-in reader sent here goes straight back.
            return redirect(safe_next(request, request.GET.get("next", "")))
        if not settings.ACCOUNTS_PASSWORD_LOGIN:  # single sign-on only: the site's page has its button
            return sign_in_redirect(request, safe_next(request, request.GET.get("next", "")))
        return render(request, "shortener/login.html", {"next": safe_next(request, request.GET.get("next", ""))})

    data = request_data(request)
    username = data.get("login", "")
    next_url = safe_next(request, data.get("next", "") or request.GET.get("next", ""))
    try:
        if not settings.ACCOUNTS_PASSWORD_LOGIN:
            # Single sign-on only (ACCOUNTS_PASSWORD_LOGIN=0): Lstu's clients, which can only send a
            # password, are told where to sign in instead; no password is checked.
            sign_in = request.build_absolute_uri(reverse("account_login"))
            raise Failure(messages.PASSWORD_LOGIN_OFF.format(provider=settings.OIDC_NAME, url=sign_in), 403)
        password = data.get("password", "")
        if not username or not password:
            raise Failure(messages.LOGIN_FIELDS_MISSING)
        # Failed sign-ins are counted, and locked accounts and addresses refused, by the
        # authentication backends (accounts/signin_limits.py): successes cost nothing.
        user = authenticate(request, username=username, password=password)
        if user is None:
            locked_for = getattr(request, "signin_locked_for", None)
            if locked_for is not None:
                raise Failure(messages.TOO_MANY_LOGINS.format(seconds=locked_for), 429, retry_after=locked_for)
        # An account whose sign-up address is not confirmed yet (ACCOUNTS_EMAIL_VERIFICATION=mandatory)
        # gets no session here either: the same answer as a wrong password, which tells nothing.
        if user is None or awaits_confirmation(user):
            raise Failure(messages.LOGIN_FAILED, 401)
        # Two-factor on: the password alone signs nobody in. A browser goes on to allauth's
        # second step; a JSON client (Lstu's API clients) cannot, and is told so.
        if two_factor.needs_second_step(user):
            if not wants_json(request):
                return two_factor.hand_over(request, user, next_url)
            url = request.build_absolute_uri(reverse("account_login"))
            raise Failure(messages.LOGIN_NEEDS_SECOND_FACTOR.format(url=url), 403)
    except Failure as failure:
        if wants_json(request):
            raise
        context = {"error": failure.msg, "login": username, "next": next_url}
        page = render(request, "shortener/login.html", context, status=failure.status)
        if failure.retry_after is not None:
            page["Retry-After"] = str(failure.retry_after)
        return page

    login(request, user)
    if wants_json(request):
        return success(msg=messages.LOGIN_OK)
    flash.success(request, localized(messages.LOGIN_OK))
    return redirect(next_url)


@endpoint("GET")
def logout_view(request: HttpRequest) -> HttpResponse:
    # Ends admin mode too: the whole session is flushed.
    logout(request)
    if wants_json(request):
        return success(msg=messages.LOGOUT_OK)
    return redirect("shortener:logged-out")


@endpoint("GET", "HEAD")
def logged_out(request: HttpRequest) -> HttpResponse:
    return render(request, "shortener/logged_out.html", {"msg": messages.LOGOUT_OK})
