"""Changing one's links: the edit form and `PATCH`/`POST /edit/<code>` (owner, or admin mode)."""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from shortener import messages
from shortener.domains import domain_query
from shortener.errors import Failure
from shortener.formats import has_json_body
from shortener.messages import localized
from shortener.models import REDIRECT_STATUSES, ShortLink
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.responses import success
from shortener.services.editing import link_update, tags_of
from shortener.views.base import extra_fields, lifetime_fields, login_required_response, short_url
from shortener.views.stats import owned_link

FORWARD_FIELDS = ("forward_query", "forward_path")


def _data(request: HttpRequest) -> dict[str, str]:
    if request.method == "PATCH" and not has_json_body(request):
        # Django parses only POST bodies; a form-encoded PATCH is read the same way here.
        body = QueryDict(request.body)
        for value in body.values():
            if "\x00" in value:
                raise Failure(messages.FIELD_HAS_NUL.format(field="?"))
        return {key: body.get(key, "") for key in body}
    return request_data(request)


def _form_context(link: ShortLink, short: str, data: dict[str, str] | None = None, error: str = "") -> dict:
    values = {
        "url": link.url,
        "expires_at": link.expires_at.strftime("%Y-%m-%dT%H:%M") if link.expires_at else "",
        "max_visits": link.max_visits or "",
        "tags": " ".join(tags_of(link)),
        "forward_query": link.forward_query,
        "forward_path": link.forward_path,
        "redirect_status": str(link.redirect_status or ""),
        "preview_title": link.preview_title,
        "preview_description": link.preview_description,
        "preview_image": link.preview_image,
    }
    if data:
        values.update({key: data[key] for key in values if key in data and key not in FORWARD_FIELDS})
        values.update({key: data[key] == "1" for key in FORWARD_FIELDS if key in data})
    statuses = [("", _("Server default")), *((str(status), str(status)) for status in REDIRECT_STATUSES)]
    return {"link": link, "short": short, "values": values, "error": error, "statuses": statuses}


@endpoint("GET", "HEAD", "POST", "PATCH", csrf=True, token=True)
def edit(request: HttpRequest, code: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    link = owned_link(request, code)
    short = short_url(request, code)
    if request.method in ("GET", "HEAD"):
        if wants_json(request):
            return success(url=link.url, short=short, **lifetime_fields(link), **extra_fields(link))
        return render(request, "shortener/edit.html", _form_context(link, short))
    data = _data(request)
    try:
        link_update(link=link, data=data, short=short)
    except Failure as failure:
        if wants_json(request):
            raise
        fresh = ShortLink.objects.get(pk=link.pk)
        context = _form_context(fresh, short, data, failure.msg)
        return render(request, "shortener/edit.html", context, status=failure.status)
    if wants_json(request):
        return success(url=link.url, short=short, **lifetime_fields(link), **extra_fields(link))
    flash.success(request, localized(messages.LINK_UPDATED.format(short=short)))
    return redirect(reverse("shortener:stats-detail", args=[code]) + domain_query(request, link.domain))
