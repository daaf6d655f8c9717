"""Embeds (issue 47, item 5): /pastes/{id}.js and /pastes/{id}/embed over HTTP.

Public and unlisted pastes embed, highlighted; private, password, encrypted and burn-after-read
pastes never do (a clear error), not even for their signed-in owner; no cookie is read or set;
only the embed page may be framed.
"""

import pytest
from django.conf import settings
from django.test import Client

from pastes import services
from pastes.models import Paste
from tests.pastes.e2e import encrypt
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

CODE = "def greet(name):\n    return f'Hello, {name}'\n"


@pytest.fixture
def signed_in_owner(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def frame_ancestors(response) -> str:
    policy = response["Content-Security-Policy"]
    return next(part.strip() for part in policy.split(";") if part.strip().startswith("frame-ancestors"))


@pytest.mark.parametrize("exposure", [Paste.Exposure.PUBLIC, Paste.Exposure.UNLISTED])
def test_a_shared_paste_embeds_highlighted_and_framable(client, user, exposure):
    paste = PasteFactory(owner=user, name="greeter", content=CODE, syntax="python", exposure=exposure)

    response = client.get(f"/pastes/{paste.id}/embed")

    assert response.status_code == 200
    html = response.content.decode()
    assert '<span class="k">def</span>' in html and "greet" in html
    assert f'href="http://testserver/pastes/{paste.id}"' in html and 'target="_blank"' in html
    assert "<script" not in html  # nothing of ours runs in the frame
    assert "X-Frame-Options" not in response
    assert frame_ancestors(response) == "frame-ancestors *"
    assert "script-src 'none'" in response["Content-Security-Policy"]
    assert response["Cross-Origin-Resource-Policy"] == "cross-origin"
    assert not response.cookies
    paste.refresh_from_db()
    assert paste.views == 0


def test_the_script_writes_one_sandboxed_credentialless_iframe(client, user):
    paste = PasteFactory(owner=user, name='say "hi"</script>', content=CODE)

    response = client.get(f"/pastes/{paste.id}.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["X-Content-Type-Options"] == "nosniff"
    body = response.content.decode()
    assert f'frame.src = "http://testserver/pastes/{paste.id}/embed";' in body
    assert 'frame.title = "say \\"hi\\"</script>";' in body  # JSON-escaped, never markup
    assert '"sandbox", "allow-popups allow-popups-to-escape-sandbox"' in body
    assert '"credentialless"' in body
    assert "height:104px" in body  # 2 lines of 20 px and the footer
    assert not response.cookies


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"burn_after_read": True},
            "This paste burns after reading, so it cannot be embedded: its first reader deletes it.",
        ),
        (
            {"encrypted": True, "content": encrypt("secret")[0]},
            "This paste is end-to-end encrypted, so it cannot be embedded: the server cannot read it.",
        ),
        ({"password": "open sesame"}, "This paste is protected by a password, so it cannot be embedded."),
    ],
    ids=["burn-after-read", "encrypted", "password"],
)
def test_pastes_that_are_never_embedded_say_why_even_to_their_owner(signed_in_owner, user, fields, message):
    password = fields.pop("password", None)
    paste = PasteFactory(owner=user, **fields)
    if password:
        paste.set_password(password)
        paste.save()

    frame = signed_in_owner.get(f"/pastes/{paste.id}/embed")
    script = signed_in_owner.get(f"/pastes/{paste.id}.js")

    assert frame.status_code == 403
    assert message in frame.content.decode()
    assert script.status_code == 403
    assert message in script.content.decode()
    assert Paste.objects.filter(pk=paste.pk).exists()  # nothing burned


def test_a_private_paste_is_not_found_even_with_its_owners_session(signed_in_owner, user):
    paste = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE, content=CODE)
    message = "This paste does not exist or is not shared, so it cannot be embedded."
    assert signed_in_owner.get(f"/pastes/{paste.id}").status_code == 200  # the owner's page, by the session

    for path in (f"/pastes/{paste.id}/embed", f"/pastes/{paste.id}.js", "/pastes/AAAAAAAAAAAA/embed"):
        response = signed_in_owner.get(path)
        assert response.status_code == 404
        assert message in response.content.decode()
        assert "greet" not in response.content.decode()
        assert not response.cookies


def test_no_session_is_read_or_set(signed_in_owner, user):
    paste = PasteFactory(owner=user, content=CODE)
    for path in (f"/pastes/{paste.id}/embed", f"/pastes/{paste.id}.js"):
        response = signed_in_owner.get(path)
        assert response.status_code == 200
        assert settings.SESSION_COOKIE_NAME not in response.cookies
        assert settings.CSRF_COOKIE_NAME not in response.cookies
        assert "Cookie" not in response.get("Vary", "")
        assert "alice" not in response.content.decode()  # nothing of the signed-in reader


def test_every_other_page_still_refuses_framing(client, user):
    paste = PasteFactory(owner=user, content=CODE)
    for path in (f"/pastes/{paste.id}", "/pastes/", f"/pastes/{paste.id}/download"):
        response = client.get(path, HTTP_ACCEPT="text/html")
        assert response["X-Frame-Options"] == "DENY", path
    assert frame_ancestors(client.get(f"/pastes/{paste.id}")) == "frame-ancestors 'none'"


def test_embeds_take_only_get(client, user):
    paste = PasteFactory(owner=user)
    assert client.post(f"/pastes/{paste.id}/embed").status_code == 405
    assert client.post(f"/pastes/{paste.id}.js").status_code == 405


def test_the_paste_page_offers_the_snippets_only_when_embeddable(client, user):
    shared = PasteFactory(owner=user, content=CODE)
    burning = PasteFactory(owner=user, content=CODE, burn_after_read=True)
    page = client.get(f"/pastes/{shared.id}").content.decode()
    assert f'src="http://testserver/pastes/{shared.id}.js" crossorigin="anonymous"></script>' in page
    assert f"/pastes/{shared.id}/embed" in page
    assert "/embed" not in client.get(f"/pastes/{burning.id}").content.decode()


def test_a_many_file_paste_embeds_every_file_under_its_name(client, user):
    files = [
        {"filename": "greet.py", "content": CODE},
        {"filename": "NOTES.md", "content": "# Notes\n"},
        {"filename": "run.sh", "content": "echo hi\n"},
    ]
    paste = services.paste_create(owner=user, name="three", files=files)

    frame = client.get(f"/pastes/{paste.id}/embed")
    script = client.get(f"/pastes/{paste.id}.js")

    assert frame.status_code == 200
    html = frame.content.decode()
    assert [name for name in ("greet.py", "NOTES.md", "run.sh") if name in html] == ["greet.py", "NOTES.md", "run.sh"]
    assert html.index("greet.py") < html.index("NOTES.md") < html.index("run.sh")
    assert '<span class="k">def</span>' in html and '<span class="nb">echo</span>' in html  # each highlighted
    assert "height:222px" in script.content.decode()  # 2 + 1 + 1 lines of 20 px, 3 names of 26 and the footer
