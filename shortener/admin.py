from django import forms
from django.contrib import admin
from django.core.paginator import Page
from django.db.models import F, QuerySet
from django.db.models.fields.tuple_lookups import Tuple, TupleLessThanOrEqual

from common.admin import ApiKeyAdmin
from common.estimated_count import EstimatedCountPaginator
from common.paging import LARGE_TABLE_PER_PAGE, KeptCountPaginator
from shortener import domains
from shortener.errors import Failure
from shortener.models import ApiKey, ShortDomain, ShortLink
from shortener.moderation import admin as moderation_admin  # noqa: F401  (registers the queue)
from shortener.rules import clean_rules
from shortener.services.tallies import NEWEST, all_links, created_key_at

admin.site.register(ApiKey, ApiKeyAdmin)


class NewestLinksPaginator(KeptCountPaginator):
    """Every link, newest first: a page is a seek from its first row, found through the day tallies.

    The same rows as the OFFSET page (created_key_at gives that row's key exactly), without
    walking the OFFSET: the middle page of 10⁶ links read 500,000 index entries. Where the
    tallies are not kept (SQLite) or miss the row (links removed since the count was read), the
    page is read as KeptCountPaginator reads it.
    """

    def page(self, number: int | str) -> Page:
        number = self.validate_number(number)
        offset = (number - 1) * self.per_page
        key = created_key_at(offset) if 0 < offset < self.count else None
        if key is None:
            return super().page(number)
        # A row-value comparison: one range of shortener_link_created_idx.
        at_or_after = TupleLessThanOrEqual(Tuple(F("created_at"), F("pk")), key)
        return self._get_page(list(self.object_list.filter(at_or_after)[: self.per_page]), number, self)


def _order_of(queryset: QuerySet) -> tuple:
    """The ORDER BY of the changelist's queryset without repeats, up to the pk (nothing after it counts).

    The changelist appends the admin's ordering to the one the sorted column asks for, so the
    default order comes as ("-created_at", "-pk", "-created_at", "-pk").
    """
    terms: list = []
    for term in queryset.query.order_by:
        if term not in terms:
            terms.append(term)
        if term in ("pk", "-pk"):
            break
    return tuple(terms)


class ShortLinkForm(forms.ModelForm):
    """Rules saved from the admin are checked and normalised as the API's are (the redirect compiles them)."""

    def clean_rules(self) -> list[dict]:
        try:
            return clean_rules(self.cleaned_data["rules"] or [])
        except Failure as failure:
            raise forms.ValidationError(failure.msg) from None


@admin.register(ShortLink)
class ShortLinkAdmin(admin.ModelAdmin):
    form = ShortLinkForm
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
        "domain",  # last: the changelist's sort parameters (o=…) number the columns
    )
    list_filter = ("is_custom", ("deleted_at", admin.EmptyFieldListFilter), "domain")
    list_select_related = ("owner",)
    search_fields = ("code", "url", "owner__username")
    raw_id_fields = ("owner",)
    readonly_fields = ("counter", "created_at", "imported_visits")
    # Newest first with the pk the admin adds as tiebreak: the order of shortener_link_created_idx.
    ordering = ("-created_at", "-pk")
    # At 10^6 links an exact count is a scan per list page: count only up to a bound, then estimate.
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    list_per_page = LARGE_TABLE_PER_PAGE

    def get_paginator(self, request, queryset, per_page, orphans=0, allow_empty_first_page=True):
        if queryset.query.where:  # filtered or searched
            return super().get_paginator(request, queryset, per_page, orphans, allow_empty_first_page)
        # The whole table: its size is kept (LinkTally), so the count is exact without a scan.
        # Newest first (the default order), a page starts from the row the day tallies point
        # to; sorted otherwise, a page in the second half is read backwards from the index's end.
        paginator = NewestLinksPaginator if _order_of(queryset) == NEWEST else KeptCountPaginator
        return paginator(queryset, per_page, orphans, allow_empty_first_page, kept_total=all_links())


class ShortDomainForm(forms.ModelForm):
    """The domain is one of SHORTENER_DOMAINS (stored as links store it: "" for the default)."""

    domain = forms.TypedChoiceField(choices=())

    class Meta:
        model = ShortDomain
        fields = ("domain", "root_redirect", "not_found_redirect")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["domain"].choices = [(domains.key_of_host(host), host) for host in domains.configured()]


@admin.register(ShortDomain)
class ShortDomainAdmin(admin.ModelAdmin):
    form = ShortDomainForm
    list_display = ("__str__", "root_redirect", "not_found_redirect")
