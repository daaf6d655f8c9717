"""Personal API tokens: made and revoked by their user on the statistics page."""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from shortener import messages
from shortener.messages import localized
from shortener.negotiation import endpoint, request_data, wants_json
from shortener.responses import success
from shortener.services import tokens as services
from shortener.views.base import login_required_response
from shortener.views.stats import stats_page


@endpoint("POST", csrf=True)
def token_create(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    api_key, raw_key = services.token_issue(user=request.user, name=request_data(request).get("name", ""))
    if wants_json(request):
        return success(id=api_key.pk, name=api_key.name, token=raw_key)
    # Rendered, not redirected to: the raw token is shown once and stored nowhere, not even in the session.
    return stats_page(request, new_token=raw_key)


@endpoint("POST", csrf=True)
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    api_key = services.token_revoke(user=request.user, pk=pk)
    message = messages.TOKEN_REVOKED.format(hint=api_key.hint)
    if wants_json(request):
        return success(msg=message)
    flash.success(request, localized(message))
    return redirect("shortener:stats")
