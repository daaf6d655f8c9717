from django.contrib import admin

from common.admin import ApiKeyAdmin
from shortener.models import ApiKey, ShortLink

admin.site.register(ApiKey, ApiKeyAdmin)


@admin.register(ShortLink)
class ShortLinkAdmin(admin.ModelAdmin):
    list_display = (
        "code",
        "url",
        "owner",
        "counter",
        "is_custom",
        "created_at",
        "deleted_at",
        "expires_at",
        "max_visits",
    )
    list_filter = ("is_custom", ("deleted_at", admin.EmptyFieldListFilter))
    list_select_related = ("owner",)
    search_fields = ("code", "url", "owner__username")
    raw_id_fields = ("owner",)
    readonly_fields = ("counter", "created_at")
    ordering = ("-created_at",)
