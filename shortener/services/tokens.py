"""Issuing and revoking a user's personal API tokens (the statistics page and its JSON twin)."""

from django.contrib.auth.models import AbstractBaseUser

from shortener import messages
from shortener.errors import Failure
from shortener.models import ApiKey

NAME_MAX_LENGTH = ApiKey._meta.get_field("name").max_length


def token_issue(*, user: AbstractBaseUser, name: str) -> tuple[ApiKey, str]:
    """A new token for `user` and its raw value, which is stored nowhere and shown once."""
    name = name.strip()
    if len(name) > NAME_MAX_LENGTH:
        raise Failure(messages.TOKEN_NAME_TOO_LONG.format(limit=NAME_MAX_LENGTH))
    return ApiKey.issue(user=user, name=name)


def token_revoke(*, user: AbstractBaseUser, pk: int) -> ApiKey:
    """Revoke `user`'s live token `pk`; another user's token is as unknown as a missing one."""
    api_key = ApiKey.objects.filter(pk=pk, user=user, revoked_at__isnull=True).first()
    if api_key is None:
        raise Failure(messages.TOKEN_UNKNOWN, 404)
    api_key.revoke()
    return api_key
