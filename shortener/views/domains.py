"""Each short domain's root and not-found redirects, set by admins (admin mode; also the Django admin)."""

from django.contrib import messages as flash
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from shortener import domains, messages
from shortener.errors import Failure
from shortener.messages import localized
from shortener.models import ShortDomain
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.responses import success
from shortener.services.admin_mode import is_admin
from shortener.services.links import clean_url
from shortener.views.base import login_required_response

REDIRECT_FIELDS = ("root_redirect", "not_found_redirect")


def _listing() -> list[dict[str, str]]:
    """Every configured domain, the default first, with what is set for it ("" where nothing is)."""
    stored = {row.domain: row for row in ShortDomain.objects.all()}
    listing = []
    for host in domains.configured():
        row = stored.get(domains.key_of_host(host))
        listing.append({"domain": host, **{field: getattr(row, field) if row else "" for field in REDIRECT_FIELDS}})
    return listing


def _clean_redirect(raw: str) -> str:
    """An empty value (nothing set) or a URL as a link's target must be (blocked hosts included)."""
    return clean_url(raw) if raw.strip() else ""


@endpoint("GET", "HEAD", "POST", csrf=True)
def domain_redirects(request: HttpRequest) -> HttpResponse:
    """GET: each domain's redirects; POST `domain`, `root_redirect`, `not_found_redirect`: set one domain's."""
    if not request.user.is_authenticated:
        return login_required_response(request)
    if not is_admin(request):
        raise Failure(messages.NOT_ADMIN, 403)
    if request.method == "POST":
        data = request_data(request)
        try:
            if not data.get("domain"):
                raise Failure(messages.DOMAIN_MISSING)
            domain = domains.clean_domain(data["domain"])
            values = {field: _clean_redirect(data.get(field, "")) for field in REDIRECT_FIELDS}
        except Failure as failure:
            if wants_json(request):
                raise
            context = {"domains": _listing(), "error": failure.msg}
            return render(request, "shortener/domains.html", context, status=failure.status)
        with transaction.atomic():
            ShortDomain.objects.update_or_create(domain=domain, defaults=values)
        msg = messages.DOMAIN_SAVED.format(domain=domains.host_of(domain))
        if wants_json(request):
            return success(msg=msg, domains=_listing())
        flash.success(request, localized(msg))
        return redirect("shortener:domains")
    if wants_json(request):
        return success(domains=_listing())
    return render(request, "shortener/domains.html", {"domains": _listing()})
