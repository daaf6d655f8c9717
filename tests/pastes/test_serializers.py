from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework import serializers

from pastes.models import Paste
from pastes.serializers import PasteSerializer
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db


def drf_representation(paste: Paste) -> dict:
    """The object DRF builds from the serializer's declared fields, one field at a time."""
    return serializers.ModelSerializer.to_representation(PasteSerializer(), paste)


@pytest.mark.parametrize(
    "attributes",
    [
        {},
        {"exposure": Paste.Exposure.UNLISTED, "burn_after_read": True},
        {"exposure": Paste.Exposure.PRIVATE, "expiration": Paste.Expiration.ONE_WEEK},
    ],
)
def test_paste_representation_equals_the_declared_fields(attributes):
    expiration = attributes.get("expiration", Paste.Expiration.NEVER)
    expires_at = None if expiration == Paste.Expiration.NEVER else timezone.now() + timedelta(weeks=1)
    paste = PasteFactory(name="Ünïcode ✓", content="a\nb", views=3, expires_at=expires_at, **attributes)
    paste.refresh_from_db()

    assert PasteSerializer(paste).data == drf_representation(paste)
