"""The admin site: Django's, but its sign-in redirect goes through common.sign_in."""

from collections.abc import Callable
from functools import update_wrapper

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache

from common.sign_in import sign_in_redirect


class AdminSite(admin.AdminSite):
    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """Django's, unless ACCOUNTS_PASSWORD_LOGIN=0: then the site's sign-in page (single sign-on), and back.

        A password posted here would be refused anyway (accounts.backends.SignInLimitGuard).
        """
        if not settings.ACCOUNTS_PASSWORD_LOGIN:
            return sign_in_redirect(request, request.GET.get("next") or reverse("admin:index", current_app=self.name))
        return super().login(request, extra_context)

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
