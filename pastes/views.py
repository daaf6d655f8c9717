"""Interface B endpoints: thin DRF views over pastes.services.

Choices where the spec is silent are stated in each operation's OpenAPI description
(see pastes.schema), so /api/docs/ shows them next to the endpoint.
"""

from collections.abc import Callable, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import prefetch_related_objects
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from common.bots import is_bot_request
from common.permissions import KeyScopeAllows
from common.renderers import FastJSONRenderer, JSONOnlyNegotiation
from pastes import schema, services
from pastes.authentication import PasteKeyAuthentication
from pastes.errors import InvalidText, PayloadTooLarge, UserNotFound, paste_exception_handler
from pastes.models import Paste, PasteProfile
from pastes.parsers import LimitedJSONParser
from pastes.serializers import (
    AccountPageSerializer,
    PasteCreateSerializer,
    PasteEditSerializer,
    PasteSerializer,
    UserSerializer,
)
from pastes.throttling import PastePasswordThrottle, PasteReadThrottle, PasteWriteThrottle

# Responses carrying a paste are per reader (views, burning): never cache them on the way.
NO_STORE = {"Cache-Control": "no-store"}


class ExactJSONNegotiation(JSONOnlyNegotiation):
    """Answer JSON whatever Accept says; parse only a body whose Content-Type is exactly a parser's."""

    def select_parser(self, request: Request, parsers: Sequence) -> object | None:
        content_type = request.content_type.split(";")[0].strip().lower()
        return next((parser for parser in parsers if parser.media_type == content_type), None)


class PasteAPIView(APIView):
    """Base for interface B: pastes key auth, JSON in and out, rate limits, `{code, message}` errors."""

    authentication_classes = [PasteKeyAuthentication]
    permission_classes = [AllowAny]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = ExactJSONNegotiation
    throttle_classes = [PasteReadThrottle, PasteWriteThrottle]

    def get_exception_handler(self) -> Callable:
        return paste_exception_handler

    def get_permissions(self) -> list[BasePermission]:
        # Here, not in permission_classes, which the views below replace.
        return [*super().get_permissions(), KeyScopeAllows()]

    @property
    def reader(self) -> AbstractBaseUser | None:
        user = self.request.user
        return user if user.is_authenticated else None


class PasteIndexView(PasteAPIView):
    """Where the documentation is; also makes `/pastes` redirect here instead of to an HTML 404."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response(
            {
                "docs": reverse("api-docs", request=request),
                "schema": reverse("schema", request=request),
                "endpoints": [
                    "POST create",
                    "GET paste/@{id}",
                    "GET paste/@{id}/raw",
                    "PATCH edit/{id}",
                    "DELETE delete/{id}",
                    "GET accounts/@{username}",
                ],
            }
        )


# The fields a curl-style create may give in the query string (or, with -F, in the form).
QUERY_FIELDS = ("name", "expiration", "exposure", "burn_after_read", "syntax", "encrypted", "password", "discussion")
BOOLEAN_FIELDS = ("burn_after_read", "encrypted", "discussion")
TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off", ""})


def _form_value(field: str, value: str) -> object:
    """A query or form string as the JSON body would carry it: booleans from true/false, 1/0, yes/no, on/off."""
    if field in BOOLEAN_FIELDS and value.lower() in TRUE_WORDS | FALSE_WORDS:
        return value.lower() in TRUE_WORDS
    return value  # anything else goes to the serializer as sent, which names what is wrong with it


class PasteCreateView(PasteAPIView):
    """POST /create: a JSON body (the modelled API), or curl-style, the text as the body with the rest in the query.

    - `Content-Type: application/json`: the Paste object as JSON, as on the modelled site.
    - `multipart/form-data` (`curl -F 'content=<-'` or `-F content=@file`): the form's fields and the query's.
    - any other type, with `name` in the query (`curl --data-binary @file ...?name=notes`, which sends
      application/x-www-form-urlencoded, or text/plain): the whole body, as UTF-8 text, is the content.
    With `Accept: text/plain` the answer is the paste's URL and nothing else (no newline); errors stay
    B's JSON `{code, message}`.
    """

    permission_classes = [IsAuthenticated]
    parser_classes = [LimitedJSONParser, MultiPartParser]
    takes_text_bodies = True  # the 415 answer says so (pastes.errors)

    @extend_schema(**schema.CREATE)
    def post(self, request: Request) -> Response | HttpResponse:
        serializer = PasteCreateSerializer(data=self.input(request))
        serializer.is_valid(raise_exception=True)
        paste = services.paste_create(owner=request.user, **serializer.validated_data)
        if request.get_preferred_type(["application/json", "text/plain"]) == "text/plain":
            url = reverse("pastes:paste-page", kwargs={"paste_id": paste.id}, request=request)
            return HttpResponse(url, content_type="text/plain; charset=utf-8")
        return Response(PasteSerializer(paste).data, status=status.HTTP_200_OK)

    def input(self, request: Request) -> object:
        content_type = request.content_type.split(";")[0].strip().lower()
        if content_type == "application/json":
            return request.data
        query = {field: _form_value(field, value) for field, value in request.query_params.items()}
        if content_type == "multipart/form-data":
            self._check_declared_length(request)
            form = {
                field: _form_value(field, value) for field, value in request.data.items() if field not in request.FILES
            }
            if "content" in request.FILES:
                form["content"] = self._text(request.FILES["content"].read(settings.PASTES_MAX_BODY_BYTES + 1))
            return query | form
        if "name" in request.query_params:
            self._check_declared_length(request)
            return query | {"content": self._text(request._request.read(settings.PASTES_MAX_BODY_BYTES + 1))}
        return request.data  # 415, as before: a form body needs the name in the query

    @staticmethod
    def _check_declared_length(request: Request) -> None:
        declared = request.META.get("CONTENT_LENGTH", "")
        if declared.isdigit() and int(declared) > settings.PASTES_MAX_BODY_BYTES:
            raise PayloadTooLarge(
                f"The request body is too large: the limit is {settings.PASTES_MAX_BODY_BYTES} bytes."
            )

    @staticmethod
    def _text(body: bytes) -> str:
        if len(body) > settings.PASTES_MAX_BODY_BYTES:
            raise PayloadTooLarge(
                f"The request body is too large: the limit is {settings.PASTES_MAX_BODY_BYTES} bytes."
            )
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidText() from None


PASSWORD_HEADER = "X-Paste-Password"


class PasteReadView(PasteAPIView):
    """Reads count and burn, except HEAD requests and robots (see services.paste_read).

    A password-protected paste wants its password in the X-Paste-Password header: missing
    401, wrong 403, and past PASTES_PASSWORD_RATE_LIMIT wrong ones from an address 429, as
    past PASTES_PASSWORD_CHECK_LIMIT passwords (right or wrong) from an address.
    """

    def read(self, paste_id: str) -> Paste:
        count = self.request.method != "HEAD"
        robot = is_bot_request(self.request)
        password = self.request.headers.get(PASSWORD_HEADER)
        if password is None:
            return services.paste_read(paste_id=paste_id, reader=self.reader, count=count, robot=robot)
        throttle = PastePasswordThrottle(paste_id)
        throttle.attempt(self.request)
        paste = services.paste_read(paste_id=paste_id, reader=self.reader, count=count, robot=robot, password=password)
        throttle.release(self.request)  # only a wrong password counts against the limit
        return paste


class PasteDetailView(PasteReadView):
    @extend_schema(**schema.DETAIL)
    def get(self, request: Request, paste_id: str) -> Response:
        paste = self.read(paste_id)
        return Response(PasteSerializer(paste).data, headers=NO_STORE)


class PasteRawView(PasteReadView):
    @extend_schema(**schema.RAW)
    def get(self, request: Request, paste_id: str) -> HttpResponse:
        paste = self.read(paste_id)
        return HttpResponse(paste.content, content_type="text/plain; charset=utf-8", headers=NO_STORE)


class PasteEditView(PasteAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(**schema.EDIT)
    def patch(self, request: Request, paste_id: str) -> Response:
        paste = services.paste_get_for_owner(paste_id=paste_id, user=request.user)
        serializer = PasteEditSerializer(data=request.data, context={"paste_id": paste_id})
        serializer.is_valid(raise_exception=True)
        changes = {key: value for key, value in serializer.validated_data.items() if key != "id"}
        paste = services.paste_update(paste=paste, changes=changes)
        return Response(PasteSerializer(paste).data)


class PasteDeleteView(PasteAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(**schema.DELETE)
    def delete(self, request: Request, paste_id: str) -> Response:
        paste = services.paste_get_for_owner(paste_id=paste_id, user=request.user)
        services.paste_delete(paste=paste)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountView(PasteAPIView):
    @extend_schema(**schema.ACCOUNT)
    def get(self, request: Request, username: str) -> Response:
        users = get_user_model().objects.select_related("paste_profile").filter(is_active=True)
        # PostgreSQL refuses NUL bytes in a query, and no username holds one.
        user = None if "\x00" in username else users.filter(username=username).first()
        if user is None:
            raise UserNotFound()
        # A plain dict, not the QueryDict: DRF reads an empty value in a QueryDict as "not given",
        # so `?per_page=` was served the default page where the schema promises a 400.
        params = AccountPageSerializer(data=request.query_params.dict())
        params.is_valid(raise_exception=True)
        pastes, count = services.user_pastes_page(owner=user, viewer=self.reader, **params.validated_data)
        # Each paste lists its attachments: one query for those of the page's pastes that have some.
        prefetch_related_objects([paste for paste in pastes if paste.attachment_count], "attachments")
        context = {"profile": PasteProfile.for_user(user), "pastes": pastes, "pastes_count": count}
        return Response(UserSerializer(user, context=context).data)
