"""Interface B endpoints: thin DRF views over pastes.services.

Choices where the spec is silent are stated in each operation's OpenAPI description
(see pastes.schema), so /api/docs/ shows them next to the endpoint.
"""

from collections.abc import Callable, Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from common.bots import is_bot_request
from common.renderers import FastJSONRenderer, JSONOnlyNegotiation
from pastes import schema, services
from pastes.authentication import PasteKeyAuthentication
from pastes.errors import UserNotFound, paste_exception_handler
from pastes.models import Paste, PasteProfile
from pastes.parsers import LimitedJSONParser
from pastes.serializers import (
    AccountPageSerializer,
    PasteCreateSerializer,
    PasteEditSerializer,
    PasteSerializer,
    UserSerializer,
)
from pastes.throttling import PasteReadThrottle, PasteWriteThrottle

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


class PasteCreateView(PasteAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(**schema.CREATE)
    def post(self, request: Request) -> Response:
        serializer = PasteCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        paste = services.paste_create(owner=request.user, **serializer.validated_data)
        return Response(PasteSerializer(paste).data, status=status.HTTP_200_OK)


class PasteReadView(PasteAPIView):
    """Reads count and burn, except HEAD requests and robots (see services.paste_read)."""

    def read(self, paste_id: str) -> Paste:
        count = self.request.method != "HEAD"
        robot = is_bot_request(self.request)
        return services.paste_read(paste_id=paste_id, reader=self.reader, count=count, robot=robot)


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
        params = AccountPageSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        pastes, count = services.user_pastes_page(owner=user, viewer=self.reader, **params.validated_data)
        context = {"profile": PasteProfile.for_user(user), "pastes": pastes, "pastes_count": count}
        return Response(UserSerializer(user, context=context).data)
