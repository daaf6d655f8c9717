"""What every interface A endpoint shares: key authentication, the rate limit and the error shape.

The error shape itself lives in reports.errors. The API always answers JSON, whatever
the Accept header says (the reference redirects to a login page without
`Accept: application/json`; an API-only service has none to send).
"""

from collections.abc import Callable

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.permissions import KeyScopeAllows
from common.renderers import FastJSONRenderer, JSONOnlyNegotiation
from reports.authentication import ReportsApiKeyAuthentication
from reports.comparison import Comparison, to_markdown
from reports.errors import api_exception_handler
from reports.models import Audit, Report
from reports.parsers import LimitedJSONParser
from reports.throttling import ApiKeyRateThrottle


class ReportsApiView(APIView):
    """Base of interface A's views (mixed into its viewsets)."""

    authentication_classes = [ReportsApiKeyAuthentication]
    permission_classes = [IsAuthenticated, KeyScopeAllows]
    throttle_classes = [ApiKeyRateThrottle]
    parser_classes = [LimitedJSONParser, FormParser, MultiPartParser]
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation

    def get_exception_handler(self) -> Callable[[Exception, dict], Response | None]:
        return api_exception_handler

    def finalize_response(self, request: Request, response: Response, *args: object, **kwargs: object) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        rate_limit = getattr(request, "rate_limit", None)
        if rate_limit is not None:
            response["X-RateLimit-Limit"] = str(rate_limit.limit)
            response["X-RateLimit-Remaining"] = str(rate_limit.remaining)
        return response


def envelope(data: object) -> dict:
    """The reference's body for one record: `{"data": …, "status": 200}` (200 even on a 201 create)."""
    return {"data": data, "status": 200}


def comparison_baseline(request: Request, queryset: QuerySet, noun: str):
    """The report or audit named by `?with=` among `queryset` (the key owner's), or a 422/404."""
    other_id = request.query_params.get("with", "").strip()
    if not other_id:
        raise ValidationError({"with": ["The with field is required."]})
    if not other_id.isdigit():
        raise ValidationError({"with": [f"The with must be {noun} id."]})
    return get_object_or_404(queryset, pk=int(other_id))


def comparison_response(
    request: Request, compared: Comparison, subject: Report | Audit, baseline: Report | Audit, *, noun: str = "Report"
) -> Response | HttpResponse:
    """The comparison in A's envelope, or with `?format=markdown` a summary for a pull-request comment."""
    if request.query_params.get("format") == "markdown":
        page = request.build_absolute_uri
        markdown = to_markdown(
            compared,
            report_url=page(subject.get_absolute_url()),
            baseline_url=page(baseline.get_absolute_url()),
            noun=noun,
        )
        return HttpResponse(markdown, content_type="text/markdown; charset=utf-8")
    return Response(envelope(compared.to_json()))
