"""/accounts/keys/: the signed-in user's API keys and short-link tokens, made and revoked by themselves.

Each interface keeps its keys in a table of its own (common.api_keys), so a key's id on these
pages names its interface too: `<interface>-<pk>`, as in POST /accounts/keys/reports-12/revoke.
A new key is shown once, on the page that answers the form, and stored only as its digest.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from common.api_keys import INTERFACES, AbstractApiKey, Scope, expiry_on, key_model

INTERFACE_LABELS = {"reports": _("Reports"), "pastes": _("Pastes"), "shortener": _("Short links")}
NEW_KEY_TITLES = {
    "reports": _("Your new reports key"),
    "pastes": _("Your new pastes key"),
    "shortener": _("Your new short-link token"),
}
INTERFACE_CHOICES = [
    ("reports", _("Reports (rpt_…, the /api/v1 API)")),
    ("pastes", _("Pastes (pst_…)")),
    ("shortener", _("Short links (shr_…, a short-link token)")),
]
# The scopes' words on these pages; Scope's own labels (common/api_keys.py) stay as they are, so that
# no model's state changes with the language.
SCOPE_LABELS = {Scope.READ: _("Read only"), Scope.WRITE: _("Read and write")}
NAME_MAX_LENGTH = AbstractApiKey._meta.get_field("name").max_length


class KeyInterfaceConverter:
    """The interface part of a key's id on these pages."""

    regex = "|".join(INTERFACES)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class KeyForm(forms.Form):
    interface = forms.ChoiceField(choices=INTERFACE_CHOICES, label=pgettext_lazy("API key", "Interface"))
    name = forms.CharField(
        max_length=NAME_MAX_LENGTH,
        label=pgettext_lazy("API key", "Name"),
        help_text=_("What the key is for, e.g. CI or a bot."),
    )
    scope = forms.ChoiceField(
        choices=list(SCOPE_LABELS.items()),
        initial=Scope.WRITE,
        widget=forms.RadioSelect,
        label=pgettext_lazy("API key", "Scope"),
        help_text=_("A read-only key may only read (GET, HEAD and OPTIONS requests)."),
    )
    expires_at = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        label=_("Expires on (optional)"),
        help_text=_("From 00:00 UTC that day the key is refused like a revoked one. Empty: never."),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # The date picker offers no day that has begun; the server checks again.
        self.fields["expires_at"].widget.attrs["min"] = (timezone.localdate() + timedelta(days=1)).isoformat()

    def clean_expires_at(self) -> datetime | None:
        day = self.cleaned_data["expires_at"]
        if day is None:
            return None
        expires_at = expiry_on(day)
        if expires_at <= timezone.now():
            raise forms.ValidationError(
                gettext("Choose a day after today: this one has begun or is past."), code="past"
            )
        return expires_at


@dataclass(frozen=True)
class KeyRow:
    interface: str
    api_key: AbstractApiKey

    @property
    def id(self) -> str:
        return f"{self.interface}-{self.api_key.pk}"

    @property
    def interface_label(self) -> str:
        return INTERFACE_LABELS[self.interface]

    @property
    def new_key_title(self) -> str:
        return NEW_KEY_TITLES[self.interface]

    @property
    def scope_label(self) -> str:
        return SCOPE_LABELS[self.api_key.scope]


def user_keys(user: AbstractBaseUser) -> list[KeyRow]:
    """Every key of `user`, of every interface, newest first: one query per interface."""
    rows = [
        KeyRow(interface, api_key)
        for interface in INTERFACES
        for api_key in key_model(interface).objects.filter(user=user)
    ]
    return sorted(rows, key=lambda row: row.api_key.created_at, reverse=True)


def _page(request: HttpRequest, form: KeyForm, *, new_key: tuple[KeyRow, str] | None = None, status: int = 200):
    context = {"form": form, "rows": user_keys(request.user), "new_key": new_key}
    return render(request, "accounts/keys.html", context, status=status)


# never_cache: the answer to the form holds a raw key, which no cache on the way may keep.
@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def keys(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request, KeyForm())
    form = KeyForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    api_key, raw_key = key_model(data["interface"]).issue(
        user=request.user, name=data["name"], scope=data["scope"], expires_at=data["expires_at"]
    )
    # Rendered, not redirected to: the raw key is shown this once and kept nowhere, not even in the session.
    return _page(request, KeyForm(), new_key=(KeyRow(data["interface"], api_key), raw_key))


@login_required
@require_POST
def revoke(request: HttpRequest, interface: str, pk: int) -> HttpResponse:
    # Another user's key is as unknown as a missing one.
    api_key = get_object_or_404(key_model(interface), pk=pk, user=request.user)
    api_key.revoke()
    messages.success(
        request, gettext("The key {hint}… is revoked: it no longer opens anything.").format(hint=api_key.hint)
    )
    return redirect("accounts:keys")
