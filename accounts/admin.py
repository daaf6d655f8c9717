"""Staff's view of the people: the admin's sign-in, and the counts of failed sign-ins."""

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from accounts import signin_limits
from accounts.models import SignInFailures
from common.admin import LargeTableAdmin


class SignInLimitedAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin's sign-in form, saying when failed sign-ins have locked the account or the address."""

    def get_invalid_login_error(self) -> ValidationError:
        locked_for = getattr(self.request, "signin_locked_for", None)
        if locked_for is None:
            return super().get_invalid_login_error()
        return ValidationError(signin_limits.LOCKED.format(seconds=locked_for), code="locked")


admin.site.login_form = SignInLimitedAdminAuthenticationForm


@admin.register(SignInFailures)
class SignInFailuresAdmin(LargeTableAdmin):
    """Counts and locks of failed sign-ins; deleting one lifts its lock."""

    list_display = ("kind", "key", "failures", "locked_until", "forget_at")
    list_filter = ("kind",)
    search_fields = ("=key",)
    readonly_fields = ("kind", "key", "failures", "locked_until", "forget_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
