from django.contrib import admin

from common.admin import ApiKeyAdmin
from common.estimated_count import EstimatedCountPaginator
from common.paging import LARGE_TABLE_PER_PAGE, KeptCountPaginator
from shortener.models import ApiKey, ShortLink
from shortener.services.tallies import all_links

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
    # Newest first with the pk the admin adds as tiebreak: the order of shortener_link_created_idx.
    ordering = ("-created_at", "-pk")
    # At 10^6 links an exact count is a scan per list page: count only up to a bound, then estimate.
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    list_per_page = LARGE_TABLE_PER_PAGE

    def get_paginator(self, request, queryset, per_page, orphans=0, allow_empty_first_page=True):
        if queryset.query.where:  # filtered or searched
            return super().get_paginator(request, queryset, per_page, orphans, allow_empty_first_page)
        # The whole table: its size is kept (LinkTally), so the count is exact without a scan and
        # a page in the second half is read backwards from the index's end, not past an OFFSET.
        return KeptCountPaginator(queryset, per_page, orphans, allow_empty_first_page, kept_total=all_links())
