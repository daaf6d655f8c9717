"""The objects the site-wide browser sweeps open pages of (tests/axe.py PAGES): the accessibility sweep
(test_axe_browser.py) and the language sweep (test_i18n_browser.py)."""

from datetime import timedelta

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.usersessions.models import UserSession
from django.contrib.auth.hashers import make_password
from django.test import Client
from django.utils import timezone

from pastes import services as paste_services
from pastes.models import ApiKey as PastesApiKey
from pastes.models import Comment
from reports.models import ApiKey as ReportsApiKey
from shortener.models import ApiKey as ShortenerApiKey
from shortener.models import LinkReport
from tests.pastes.attachment_fixtures import paste_with_attachments
from tests.pastes.e2e import encrypt, seal
from tests.pastes.factories import PasteFactory
from tests.pastes.test_password import protected
from tests.reports.factories import ReportFactory
from tests.shortener.factories import ShortLinkFactory

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36"
)


@pytest.fixture
def sweep_settings(settings):
    """The settings the sweep's pages need (`objects` brings them)."""
    # So that /accounts/signup/ shows its form, not the "closed" page of the default.
    settings.ACCOUNTS_REGISTRATION = "open"
    # So that the shortener's admin mode exists ("admin-mode" pages).
    settings.SHORTENER_ADMINPWD = "axe-admin"


@pytest.fixture
def objects(user, settings, tmp_path, sweep_settings) -> dict[str, str]:
    """What PAGES' paths name: one of each kind of paste, a report and a short link, all alice's.

    Alice also has keys of every kind, so that /accounts/keys/ shows its table in every state, a
    session in another browser, so that /accounts/sessions/ lists two and offers to sign out the other,
    and recovery codes.
    """
    ReportsApiKey.issue(user=user, name="ci pipeline")
    PastesApiKey.issue(user=user, name="editor", scope="read", expires_at=timezone.now() + timedelta(days=30))
    ShortenerApiKey.issue(user=user, name="an irc bot with a long name")[0].revoke()
    elsewhere = Client()
    elsewhere.force_login(user)
    UserSession.objects.filter(session_key=elsewhere.session.session_key).update(
        ip="2001:db8:85a3::8a2e:370:7334", user_agent=CHROME
    )
    RecoveryCodes.activate(user)  # so that /accounts/2fa/recovery-codes/ shows its codes
    content, key = encrypt("a secret line\n")
    return {
        "paste": PasteFactory(owner=user, name="Snippet", content="print('hello')\n", syntax="python").id,
        "encrypted_paste": PasteFactory(owner=user, name="Sealed", content=content, encrypted=True).id + f"#key={key}",
        "protected_paste": protected(user, name="Vault").id,
        "burning_paste": PasteFactory(owner=user, name="Once", burn_after_read=True).id,
        "discussed_paste": discussed(user),
        "files_paste": files_paste(user),
        "encrypted_files_paste": encrypted_files_paste(user),
        "attached_paste": paste_with_attachments(user, settings, tmp_path / "attachments"),
        "report": ReportFactory(owner=user).pk,
        # With a redirect rule and a preview, so that their pages show them (issue 46).
        "link": ShortLinkFactory(
            owner=user,
            code="axe1",
            rules=[{"when": {"device": "ios", "query": {"ref": None}}, "url": "https://apps.example/"}],
            preview_title="A card",
        ).code,
        "protected_link": ShortLinkFactory(owner=user, code="axe2", password_hash=make_password("axe")).code,
        "disabled_link": reported_and_disabled(user),
    }


def reported_and_disabled(user) -> str:
    """A link in the moderation queue, and one disabled: the queue's two tables (and the 410 page)."""
    reported = ShortLinkFactory(owner=user, code="axe4", url="https://phish.example/a-long-path-to-show-wrapping")
    LinkReport.objects.create(link=reported, reason="Phishing: it asks for a bank password.")
    return ShortLinkFactory(owner=user, code="axe3", disabled_at=timezone.now(), disabled_reason="Reported").code


def discussed(user) -> str:
    """A paste with a discussion: a comment with a reply, so the page shows both levels."""
    paste = PasteFactory(owner=user, name="Talk", content="print('hi')\n", syntax="python", discussion=True)
    top = Comment.objects.create(paste=paste, nickname="Ann", text="Nice one")
    Comment.objects.create(paste=paste, parent=top, author=user, text="Thanks")
    return paste.id


def files_paste(user) -> str:
    """Three files (issue 47), edited once: its page, edit form and history (with a diff) are swept."""
    files = [
        {"filename": "main.py", "content": "print('hello')\n"},
        {"filename": "README.md", "content": "# Read me\n"},
        {"filename": "notes.txt", "content": "a note\n"},
    ]
    paste = paste_services.paste_create(owner=user, name="Three files", files=files)
    paste_services.paste_update(paste=paste, changes={"content": "print('hello, world')\n"})
    return paste.id


def encrypted_files_paste(user) -> str:
    _, key = encrypt("")
    sealed = [{"filename": seal(name, key), "content": seal("a secret\n", key)} for name in ("one.txt", "two.txt")]
    paste = paste_services.paste_create(owner=user, name="Sealed files", files=sealed, encrypted=True)
    return paste.id + f"#key={key}"
