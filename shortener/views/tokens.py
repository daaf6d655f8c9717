"""Personal API tokens: made and revoked by their user on the statistics page."""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from shortener import messages
from shortener.errors import Failure
from shortener.models import ApiKey
from shortener.negotiation import endpoint, request_data, success, wants_json
from shortener.views.base import login_required_response
from shortener.views.stats import stats_page

NAME_MAX_LENGTH = ApiKey._meta.get_field("name").max_length


@endpoint("POST", csrf=True)
def token_create(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    name = request_data(request).get("name", "").strip()
    if len(name) > NAME_MAX_LENGTH:
        raise Failure(messages.TOKEN_NAME_TOO_LONG.format(limit=NAME_MAX_LENGTH))
    api_key, raw_key = ApiKey.issue(user=request.user, name=name)
    if wants_json(request):
        return success(id=api_key.pk, name=api_key.name, token=raw_key)
    # Rendered, not redirected to: the raw token is shown once and stored nowhere, not even in the session.
    return stats_page(request, new_token=raw_key)


@endpoint("POST", csrf=True)
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return login_required_response(request)
    # Another user's token is as unknown as a missing one.
    api_key = ApiKey.objects.filter(pk=pk, user=request.user, revoked_at__isnull=True).first()
    if api_key is None:
        raise Failure(messages.TOKEN_UNKNOWN, 404)
    api_key.revoke()
    message = messages.TOKEN_REVOKED.format(hint=api_key.hint)
    if wants_json(request):
        return success(msg=message)
    flash.success(request, message)
    return redirect("shortener:stats")
