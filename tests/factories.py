"""The one user factory every app's tests build on."""

import factory
from django.contrib.auth import get_user_model


class UserFactory(factory.django.DjangoModelFactory):
    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("secret-password")

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
