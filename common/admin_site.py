"""The admin site: Django's, but its sign-in redirect goes through common.sign_in, its sign-in form
hands an account with two-factor on to allauth's second step (accounts/two_factor.py), and with
single sign-on only (ACCOUNTS_PASSWORD_LOGIN=0) it has no password form at all."""

from collections.abc import Callable
from functools import update_wrapper

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from common.sign_in import sign_in_redirect


class AdminSite(admin.AdminSite):
    def admin_view(self, view: Callable[..., HttpResponse], cacheable: bool = False) -> Callable[..., HttpResponse]:
        """Django's admin_view, whose redirect to the admin's sign-in page leaves out a `next` it would not follow.

        Django's puts the whole path and query there: `/admin/?a0=1&…&a2999=1` was a 400
        (DisallowedRedirect, over 16,384 characters) logged with a traceback.
        """
        protected = super().admin_view(view, cacheable)

        def inner(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            # The logout page of a reader not signed in sends to the index: Django's does that.
            if not self.has_permission(request) and request.path != reverse("admin:logout", current_app=self.name):
                login_url = reverse("admin:login", current_app=self.name)
                return sign_in_redirect(request, request.get_full_path(), login_url)
            return protected(request, *args, **kwargs)

        update_wrapper(inner, protected)
        return inner if cacheable else never_cache(inner)

    @method_decorator(never_cache)
    @login_not_required
    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """Django's AdminSite.login (6.1), with a view that does not sign in on the password alone
        an account with two-factor on: it goes on to allauth's second step, then to the admin.

        allauth's advice (secure_admin_login) sends the admin's sign-in to /accounts/login/; this
        keeps the admin's own form, as operators and their scripts use it. With ACCOUNTS_PASSWORD_LOGIN=0
        it sends to the site's sign-in page (single sign-on) instead, and back; a password posted here
        would be refused anyway (accounts.backends.SignInLimitGuard).
        """
        if not settings.ACCOUNTS_PASSWORD_LOGIN:
            return sign_in_redirect(request, request.GET.get("next") or reverse("admin:index", current_app=self.name))
        from django.contrib.admin.forms import AdminAuthenticationForm  # imports User: not at module level

        redirect_url = LoginView().get_redirect_url(request) or reverse("admin:index", current_app=self.name)
        if request.method == "GET" and self.has_permission(request):
            return HttpResponseRedirect(redirect_url)
        context = {
            **self.each_context(request),
            "title": _("Log in"),
            "subtitle": None,
            "app_path": request.get_full_path(),
            "username": request.user.get_username(),
            REDIRECT_FIELD_NAME: redirect_url,
        }
        context.update(extra_context or {})
        request.current_app = self.name
        return _AdminLoginView.as_view(
            extra_context=context,
            authentication_form=self.login_form or AdminAuthenticationForm,
            template_name=self.login_template or "admin/login.html",
        )(request)


class _AdminLoginView(LoginView):
    def form_valid(self, form) -> HttpResponse:
        from accounts import two_factor

        user = form.get_user()
        if two_factor.needs_second_step(user):
            return two_factor.hand_over(self.request, user, self.get_success_url())
        return super().form_valid(form)
