import factory
from factory.django import DjangoModelFactory

from shortener.models import ShortLink
from tests.factories import UserFactory


class ShortLinkFactory(DjangoModelFactory):
    code = factory.Sequence(lambda n: f"code{n:04d}")
    url = factory.Sequence(lambda n: f"https://example.com/page/{n}")
    owner = factory.SubFactory(UserFactory)

    class Meta:
        model = ShortLink
