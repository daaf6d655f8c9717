"""Staff's view of the people: the user list at any size, disabling, badges and quotas."""

from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import signin_limits
from accounts.disabling import disable_users, end_access
from accounts.models import SignInFailures
from common.admin import LargeTableAdmin
from pastes.models import PasteProfile

User = get_user_model()


class SignInLimitedAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin's sign-in form, saying when failed sign-ins have locked the account or the address."""

    def get_invalid_login_error(self) -> ValidationError:
        locked_for = getattr(self.request, "signin_locked_for", None)
        if locked_for is None:
            return super().get_invalid_login_error()
        return ValidationError(signin_limits.locked_message(locked_for), code="locked")


admin.site.login_form = SignInLimitedAdminAuthenticationForm


class PasteProfileInline(admin.StackedInline):
    """Badges and the paste quota, set by staff only (the user edits avatar and bio in the account area)."""

    model = PasteProfile
    can_delete = False
    fields = ("badges", "max_paste_chars", "avatar", "bio")
    verbose_name_plural = _("paste profile")


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(LargeTableAdmin, DjangoUserAdmin):
    """Django's user admin that never counts the whole table (LargeTableAdmin), and disables at once.

    Turning `is_active` off here, in the form or with the action, ends the user's sessions and
    revokes every API key of theirs in the same transaction (accounts.disabling).
    """

    inlines = (PasteProfileInline,)
    actions = ("disable_selected",)
    # The two names people sign in with, each served by its trigram index on PostgreSQL (accounts
    # 0003). Django's default also searches first and last names: one unindexed column in the OR
    # makes PostgreSQL read the whole table, and sign-up here asks for neither.
    search_fields = ("username", "email")

    def save_model(self, request: HttpRequest, obj: User, form: ModelForm, change: bool) -> None:
        # The admin's change view runs in one transaction: the save and the ending together.
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            end_access([obj.pk])

    @admin.action(description=_("Disable selected users (end their sessions, revoke their keys)"))
    def disable_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        count = disable_users(queryset)
        message = ngettext("Disabled {count} user.", "Disabled {count} users.", count).format(count=count)
        self.message_user(request, message, messages.SUCCESS)


@admin.register(SignInFailures)
class SignInFailuresAdmin(LargeTableAdmin):
    """Counts and locks of failed sign-ins; deleting one lifts its lock."""

    list_display = ("kind", "key", "failures", "locked_until", "forget_at")
    list_filter = ("kind",)
    search_fields = ("=key",)
    readonly_fields = ("kind", "key", "failures", "locked_until", "forget_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
