"""B's pages in French, German and Spanish (issue 48): every pastes page of the axe sweep, with no
English left; the JSON API answers in English, byte for byte, whatever Accept-Language says."""

import re

import pytest
from django.test import Client

from pastes import services as paste_services
from pastes.models import Comment
from tests.axe import PAGES
from tests.i18n import untranslated
from tests.pastes.attachment_fixtures import paste_with_attachments
from tests.pastes.e2e import encrypt, seal
from tests.pastes.factories import PasteFactory
from tests.pastes.test_password import protected

pytestmark = pytest.mark.django_db

LANGUAGES = ("fr", "de", "es")
PASTES_PAGES = [(path, who) for path, who in PAGES if path.startswith("/pastes/")]
# The site's header and footer are the top-level catalog's (templates/), checked by its own tests.
SITE_CHROME = re.compile(r'<nav class="site-nav".*?</nav>|<footer class="site-footer">.*?</footer>', re.S)
# What the pages show that is the pastes' own: names, files, comments, and Pygments' language names.
OWN_WORDS = (
    *("Snippet", "Sealed", "Vault", "Once", "Talk", "Three files", "Sealed files", "With files"),
    *("alice", "Ann", "Nice one", "Thanks", "main.py", "README.md", "notes.txt"),
    *("a-rather-long-photo-name.png", "report.pdf", "Python", "Markdown"),
    *(f"{name} · Webtools" for name in ("Three files", "Sealed files", "With files")),
)


@pytest.fixture
def objects(user, settings, tmp_path) -> dict[str, str]:
    """What the sweep's paths name (tests/foundation/test_axe_browser.py::objects, the pastes only)."""
    content, key = encrypt("a secret line\n")
    talk = PasteFactory(owner=user, name="Talk", content="print('hi')\n", syntax="python", discussion=True)
    top = Comment.objects.create(paste=talk, nickname="Ann", text="Nice one")
    Comment.objects.create(paste=talk, parent=top, author=user, text="Thanks")
    files = [
        {"filename": "main.py", "content": "print('hello')\n"},
        {"filename": "README.md", "content": "# Read me\n"},
        {"filename": "notes.txt", "content": "a note\n"},
    ]
    three = paste_services.paste_create(owner=user, name="Three files", files=files)
    paste_services.paste_update(paste=three, changes={"content": "print('hello, world')\n"})
    sealed = [{"filename": seal(name, key), "content": seal("a secret\n", key)} for name in ("one.txt", "two.txt")]
    sealed_files = paste_services.paste_create(owner=user, name="Sealed files", files=sealed, encrypted=True)
    return {
        "paste": PasteFactory(owner=user, name="Snippet", content="print('hello')\n", syntax="python").id,
        "encrypted_paste": PasteFactory(owner=user, name="Sealed", content=content, encrypted=True).id,
        "protected_paste": protected(user, name="Vault").id,
        "burning_paste": PasteFactory(owner=user, name="Once", burn_after_read=True).id,
        "discussed_paste": talk.id,
        "files_paste": three.id,
        "encrypted_files_paste": sealed_files.id,
        "attached_paste": paste_with_attachments(user, settings, tmp_path / "attachments"),
    }


def page(client: Client, path: str, language: str) -> str:
    response = client.get(path, HTTP_ACCEPT_LANGUAGE=language, HTTP_ACCEPT="text/html")
    assert response.status_code == 200, (path, language, response.status_code)
    assert response["Content-Language"] == language
    return SITE_CHROME.sub("", response.content.decode())


@pytest.mark.parametrize(("path", "who"), PASTES_PAGES, ids=[f"{who}:{path}" for path, who in PASTES_PAGES])
def test_every_pastes_page_is_translated(user, objects, path, who):
    client = Client()
    if who == "signed-in":
        client.force_login(user)
    path = path.format(**objects)
    english = page(client, path, "en")

    for language in LANGUAGES:
        translated = page(client, path, language)

        assert untranslated(english, translated, language, ignore=OWN_WORDS) == [], language


def test_the_form_and_the_paste_page_speak_french(user):
    client = Client()
    client.force_login(user)

    form = client.get("/pastes/new", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    created = client.post(
        "/pastes/new",
        {"name": "Notes", "content": "x = 1\n", "syntax": "", "expiration": "1 day", "exposure": "unlisted"},
        HTTP_ACCEPT_LANGUAGE="fr",
        follow=True,
    ).content.decode()

    assert '<option value="1 day">1 jour</option>' in form
    assert '<option value="unlisted">non listé</option>' in form
    assert "Texte créé." in created
    assert "Expire</dt>" in created and "dans 23\xa0heures" in created
    assert "0 vue</dd>" in created  # French: 0 and 1 are singular


@pytest.mark.parametrize(
    ("views", "expected"),
    [
        (0, {"en": "0 views", "fr": "0 vue", "de": "0 Aufrufe", "es": "0 vistas"}),
        (1, {"en": "1 view", "fr": "1 vue", "de": "1 Aufruf", "es": "1 vista"}),
        (2, {"en": "2 views", "fr": "2 vues", "de": "2 Aufrufe", "es": "2 vistas"}),
    ],
)
def test_view_counts_follow_each_language_s_plural(user, views, expected):
    paste = PasteFactory(owner=user, name="Counted", content="x", views=views)
    client = Client()
    client.force_login(user)  # the owner's reads are not counted

    shown = {
        language: re.search(
            r'data-testid="views">([^<]*)<',
            client.get(f"/pastes/{paste.id}", HTTP_ACCEPT_LANGUAGE=language).content.decode(),
        ).group(1)
        for language in expected
    }

    assert shown == expected


def fetched(client: Client, method: str, path: str, data: dict | None, language: str) -> str:
    headers = {"HTTP_ACCEPT_LANGUAGE": language, "HTTP_ACCEPT": "text/html"}
    response = getattr(client, method)(path, data or {}, follow=True, **headers)
    return SITE_CHROME.sub("", response.content.decode())


def test_the_pages_of_what_goes_wrong_are_translated(user, other_user):
    """Error pages, refused forms and flash messages: each state made afresh in every language."""
    owner = Client()
    owner.force_login(user)
    stranger = Client()
    stranger.force_login(other_user)
    states = []
    form = {"name": "Notes", "content": "x", "expiration": "Never", "exposure": "public"}
    for language in ("en", *LANGUAGES):
        vault = protected(user, name="Vault")
        once = PasteFactory(owner=user, name="Once", burn_after_read=True, content="x")
        sealed = PasteFactory(owner=user, name="Sealed", content=encrypt("x")[0], encrypted=True)
        talk = PasteFactory(owner=user, name="Talk", content="x", discussion=True)
        snippet = PasteFactory(owner=user, name="Snippet", content="x")
        pages = [
            ("post", f"/pastes/{vault.id}", {"password": "wrong"}),  # 403, the password asked again
            ("post", f"/pastes/{once.id}", {}),  # revealed and burned: shown once
            ("get", f"/pastes/{once.id}", None),  # then gone: 404
            ("get", f"/pastes/{sealed.id}/embed", None),  # an embed refused
            ("get", "/pastes/AAAAAAAAAAAA/embed", None),
            ("post", f"/pastes/{talk.id}/comments", {"text": "   "}),  # refused, said in a message
            ("post", f"/pastes/{talk.id}/comments", {"text": "Nice one", "nickname": "Ann"}),
            ("post", f"/pastes/{snippet.id}/comments", {"text": "Nice one"}),  # no discussion
            ("get", f"/pastes/{snippet.id}/history?from=7", None),
            ("get", f"/pastes/{snippet.id}/files/5/download", None),
            ("post", f"/pastes/{snippet.id}/attachments", {}),  # no file chosen
            ("post", "/pastes/new", {"name": "Notes", "content": "", "expiration": "Never", "exposure": "public"}),
            ("post", "/pastes/new", {"name": "Notes", "content": "x", "expiration": "forever", "exposure": "public"}),
            ("post", "/pastes/new", {**form, "filename": "a.txt", "filename_2": "a.txt", "content_2": "y"}),
            ("post", "/pastes/new", {**form, "filename": "a/b.txt"}),
            ("post", f"/pastes/{snippet.id}/delete", {}),
        ]
        client_for = {f"/pastes/{once.id}": stranger}
        states.append(
            [fetched(client_for.get(path, owner), method, path, data, language) for method, path, data in pages]
        )

    english = states[0]
    for language, translated in zip(LANGUAGES, states[1:], strict=True):
        for before, after in zip(english, translated, strict=True):
            assert after != before
            # error.html's link is the top-level catalog's (templates/), like the header and footer.
            assert untranslated(before, after, language, ignore=(*OWN_WORDS, "Back to the start page")) == [], language


def test_an_embed_refused_says_why_in_the_host_page_s_reader_s_language(user):
    sealed = PasteFactory(owner=user, name="Sealed", content=encrypt("x")[0], encrypted=True)

    script = Client().get(f"/pastes/{sealed.id}.js", HTTP_ACCEPT_LANGUAGE="es")
    frame = Client().get(f"/pastes/{sealed.id}/embed", HTTP_ACCEPT_LANGUAGE="de")

    assert script.status_code == frame.status_code == 403
    assert "Este texto tiene cifrado de extremo a extremo, así que no se puede insertar" in script.content.decode()
    assert (
        "Dieser Text ist Ende-zu-Ende-verschlüsselt und kann daher nicht eingebettet werden" in frame.content.decode()
    )
