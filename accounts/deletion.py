"""/accounts/delete/: an account deleted by its owner, with everything it owns, in one transaction.

GET says what will go (counts); POST with the account's `password` deletes it and signs out.
Accounts made by LDAP or OIDC have no usable password here (their password is the directory's or
the provider's, which this site may not be able to check): they confirm by typing their
username instead, in a field named `username`.

Short links are deleted outright, not marked deleted as the shortener's own delete does: their
codes must then answer like any unknown code (404), and their statistics go with them. They are
deleted with one statement rather than one by one through the ORM (whose per-link signal bumps
the links' cache version once a link), after the rows that point at them; the cached lookups
(this process's, the shared Redis copies, and the other processes' through the version row)
are dropped in the transaction and again once it commits, so that no lookup made meanwhile
keeps a deleted link. Reports, projects and audits go by the database's own cascade
(on_delete=DB_CASCADE); pastes, keys, the profile, avatar and the rest by the ORM's.
"""

from dataclasses import dataclass

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.models import Avatar
from accounts.sessions import end_sessions
from common.api_keys import INTERFACES, key_model
from pastes.models import Paste
from reports.models import Audit, Project, Report
from shortener.fastpath import links as link_cache
from shortener.models import ShortLink


@dataclass(frozen=True)
class Holdings:
    pastes: int
    links: int
    reports: int
    projects: int
    audits: int
    keys: int


def holdings(user: AbstractBaseUser) -> Holdings:
    return Holdings(
        pastes=Paste.objects.filter(owner=user).count(),
        links=ShortLink.objects.filter(owner=user).count(),
        reports=Report.objects.filter(owner=user).count(),
        projects=Project.objects.filter(owner=user).count(),
        audits=Audit.objects.filter(owner=user).count(),
        keys=sum(key_model(interface).objects.filter(user=user).count() for interface in INTERFACES),
    )


def _forget_links(codes: list[tuple[str, str]]) -> None:
    # In slices: one Redis command per 1,000 codes rather than one of 10⁵ keys.
    for start in range(0, len(codes), 1000):
        link_cache.cache.delete_many([link_cache._cache_key(*key) for key in codes[start : start + 1000]])
    link_cache.local_links.clear()


def _delete_links(user: AbstractBaseUser) -> list[tuple[str, str]]:
    """Delete the user's short links and every row that hangs on them; their (domain, code) pairs."""
    links = ShortLink.objects.filter(owner=user)
    codes = list(links.values_list("domain", "code"))
    if not codes:
        return codes
    # Whatever points at a link (visits, per-day counts, tags, breakdowns, and any relation added
    # later), through the ORM, which deletes these in one statement each (none has signals).
    # include_hidden: most of them have no reverse accessor (related_name="+").
    relations = [
        field for field in ShortLink._meta.get_fields(include_hidden=True) if field.one_to_many or field.one_to_one
    ]
    for relation in relations:
        relation.related_model._base_manager.filter(**{f"{relation.field.name}__owner": user}).delete()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {ShortLink._meta.db_table} WHERE owner_id = %s", [user.pk])
    link_cache.bump_links_version()
    return codes


def delete_account(user: AbstractBaseUser) -> Holdings:
    """Delete the user and everything they own, all or nothing; what went."""
    with transaction.atomic():
        went = holdings(user)
        codes = _delete_links(user)
        avatar = Avatar.objects.filter(user=user).first()
        end_sessions([user.pk])
        user.delete()
        _forget_links(codes)
        transaction.on_commit(lambda: _forget_links(codes))
        if avatar is not None:
            transaction.on_commit(lambda: default_storage.delete(avatar.name))
    return went


class DeleteForm(forms.Form):
    def __init__(self, *args: object, user: AbstractBaseUser, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        if user.has_usable_password():
            self.fields["password"] = forms.CharField(
                label=gettext("Your password"),
                strip=False,
                widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
            )
        else:
            self.fields["username"] = forms.CharField(
                label=gettext("Type your username to confirm"),
                help_text=gettext(
                    "Your account signs in through single sign-on, so it has no password here: type “{username}”."
                ).format(username=user.get_username()),
                widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
            )

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(
                gettext("This is not your password: nothing was deleted."), code="wrong_password"
            )
        return password

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if username != self.user.get_username():
            raise forms.ValidationError(
                gettext("This is not your username: nothing was deleted."), code="wrong_username"
            )
        return username


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def delete(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = DeleteForm(request.POST if request.method == "POST" else None, user=user)
    if request.method == "POST" and form.is_valid():
        username = user.get_username()
        delete_account(user)
        logout(request)
        messages.success(
            request, gettext("The account {username} and everything it held are deleted.").format(username=username)
        )
        return redirect(settings.ACCOUNT_LOGOUT_REDIRECT_URL)
    status = 400 if request.method == "POST" else 200
    return render(request, "accounts/delete.html", {"form": form, "holdings": holdings(user)}, status=status)
