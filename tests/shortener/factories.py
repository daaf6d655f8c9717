import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from shortener.models import ShortLink


class UserFactory(DjangoModelFactory):
    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("secret-password")

    class Meta:
        model = get_user_model()


class ShortLinkFactory(DjangoModelFactory):
    code = factory.Sequence(lambda n: f"code{n:04d}")
    url = factory.Sequence(lambda n: f"https://example.com/page/{n}")
    owner = factory.SubFactory(UserFactory)

    class Meta:
        model = ShortLink
