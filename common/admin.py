from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from common.api_keys import AbstractApiKey
from common.paging import LARGE_TABLE_PER_PAGE, KeptCountPaginator


class ApiKeyAdmin(admin.ModelAdmin):
    """Admin for an interface's API keys: staff issue them here and see the key once."""

    list_display = ("hint", "user", "name", "scope", "created_at", "last_used_at", "expires_at", "revoked_at")
    list_filter = ("scope", ("revoked_at", admin.EmptyFieldListFilter))
    list_select_related = ("user",)
    search_fields = ("user__username", "name", "hint")
    raw_id_fields = ("user",)
    fields = ("user", "name", "scope", "expires_at", "hint", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("hint", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke_keys",)

    def save_model(self, request: HttpRequest, obj: AbstractApiKey, form: ModelForm, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        raw_key = obj.generate_raw_key()
        obj.set_raw_key(raw_key)
        super().save_model(request, obj, form, change)
        self.message_user(
            request,
            _("The new API key is %(key)s — copy it now: it is stored only as a hash and cannot be shown again.")
            % {"key": raw_key},
            messages.WARNING,
        )

    @admin.action(description=gettext_lazy("Revoke selected API keys"))
    def revoke_keys(self, request: HttpRequest, queryset: QuerySet[AbstractApiKey]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        message = ngettext("Revoked %(count)d API key.", "Revoked %(count)d API keys.", count) % {"count": count}
        self.message_user(request, message, messages.SUCCESS)


class LargeTableAdmin(admin.ModelAdmin):
    """A changelist that never counts a whole large table.

    Django's changelist counts the filtered rows and, for "N of M selected", the whole table
    again; at 10⁶ rows each is a scan of the table or of an index. Here the second count is
    off, and the first is common.paging.list_total's: exact up to EXACT_COUNT_LIMIT rows unless
    PostgreSQL's estimate is far larger, the estimate beyond (the page links then follow it).
    """

    show_full_result_count = False
    paginator = KeptCountPaginator
    list_per_page = LARGE_TABLE_PER_PAGE
