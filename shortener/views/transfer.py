"""Export (GET /export, JSON or CSV) and import (POST /import) of one's links, with the import's progress."""

from collections import Counter

from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from shortener import messages
from shortener.errors import Failure
from shortener.negotiation import SUFFIX_ATTR, endpoint, request_data, wants_json
from shortener.responses import success
from shortener.services.transfer import (
    export_csv,
    export_json,
    import_progress,
    import_start,
    links_import,
    parse_import,
    result_dict,
)
from shortener.throttling import ImportThrottle, enforce
from shortener.views.base import login_required_response, short_url
from shortener.views.stats import stats_page

CSV_TYPE = "text/csv"


def _wants_csv(request: HttpRequest) -> bool:
    suffix = getattr(request, SUFFIX_ATTR, None)
    if suffix is not None:
        return suffix == "csv"
    field = request.GET.get("_format", request.GET.get("format"))
    if field is not None:
        return field == "csv"
    return request.get_preferred_type(["application/json", CSV_TYPE]) == CSV_TYPE


class ShortPrefixes(dict):
    """Each domain's short URL less its code, made at its first link (a domain may since have left the list)."""

    def __init__(self, request: HttpRequest) -> None:
        super().__init__()
        self.request = request

    def __missing__(self, domain: str) -> str:
        prefix = self[domain] = short_url(self.request, "_", domain).removesuffix("_")
        return prefix


@endpoint("GET", "HEAD")
def export(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    # Streamed as it is read: a million links are ~200 MB of JSON, which must not be built in memory.
    short_prefixes = ShortPrefixes(request)
    if _wants_csv(request):
        body = export_csv(request.user.pk, short_prefixes)
        response = StreamingHttpResponse(body, content_type=f"{CSV_TYPE}; charset=utf-8")
        filename = "short_links.csv"
    else:
        response = StreamingHttpResponse(export_json(request.user.pk, short_prefixes), content_type="application/json")
        filename = "short_links.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@endpoint("POST", csrf=True)
def import_links(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    data = request_data(request)
    upload = request.FILES.get("file")
    if upload is None:
        raise Failure(messages.IMPORT_FILE_MISSING)
    enforce(ImportThrottle(), request)
    # One byte more than allowed is enough to tell that the file is too large.
    items = parse_import(upload.read(settings.SHORTENER_IMPORT_MAX_BYTES + 1))
    progress = import_start(user_id=request.user.pk, key=data.get("progress", ""), total=len(items))
    results = links_import(user_id=request.user.pk, items=items, progress=progress)

    counts = Counter(result.status for result in results)
    lines = [
        result_dict(result, short_url(request, result.short_code, result.domain) if result.short_code else "")
        for result in results
    ]
    summary = {status: counts[status] for status in ("created", "existing", "claimed", "refused")}
    if wants_json(request):
        return success(**summary, lines=lines)
    report = {
        "msg": messages.IMPORT_DONE.format(
            created=summary["created"], existing=summary["existing"] + summary["claimed"], refused=summary["refused"]
        ),
        "refused": [line for line in lines if line["status"] == "refused"],
    }
    return stats_page(request, import_report=report)


@endpoint("GET", "HEAD", json_by_default=True)
def import_status(request: HttpRequest, key: str) -> HttpResponse:
    """How far an import of this user has got (polled by the stats page while it uploads)."""
    if not request.user.is_authenticated:
        return login_required_response(request)
    progress = import_progress(user_id=request.user.pk, key=key)
    if progress is None:
        raise Failure(messages.IMPORT_UNKNOWN, 404)
    return success(**progress)
