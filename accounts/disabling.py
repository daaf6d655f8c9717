"""Disabling an account: it is turned off, signed out everywhere and loses its API keys, at once."""

from collections.abc import Iterable

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.sessions import end_sessions
from common.api_keys import AbstractApiKey


def disable_users(users: QuerySet) -> int:
    """Turn `users` off, end their sessions and revoke their keys, in one transaction; how many were on."""
    with transaction.atomic():
        pks = list(users.filter(is_active=True).values_list("pk", flat=True))
        get_user_model()._default_manager.filter(pk__in=pks).update(is_active=False)
        end_access(pks)
    return len(pks)


def end_access(user_pks: Iterable[int]) -> None:
    """Revoke every API key of these users (every interface's) and end every session of theirs.

    A disabled user's keys are refused anyway (AbstractApiKey's `active()`); revoked, they stay
    refused when the account is turned on again, as a key that may have leaked must.
    """
    user_pks = list(user_pks)
    if not user_pks:
        return
    now = timezone.now()
    for model in api_key_models():
        model.objects.filter(user_id__in=user_pks, revoked_at__isnull=True).update(revoked_at=now)
    end_sessions(user_pks)


def api_key_models() -> list[type[AbstractApiKey]]:
    """Every interface's key model (reports, pastes, shortener tokens, and any added later)."""
    return [model for model in apps.get_models() if issubclass(model, AbstractApiKey)]
