import factory
from django.utils import timezone

from pastes.models import ApiKey, Paste, PasteProfile
from tests.factories import UserFactory


class PasteFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Paste

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Paste {n}")
    content = factory.Faker("paragraph")
    created_at = factory.LazyFunction(timezone.now)
    expiration = Paste.Expiration.NEVER
    expires_at = None
    exposure = Paste.Exposure.PUBLIC
    burn_after_read = False


class PasteProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PasteProfile
        django_get_or_create = ("user",)

    user = factory.SubFactory(UserFactory)


def issue_key(user) -> str:
    return ApiKey.issue(user=user)[1]
