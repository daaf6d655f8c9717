"""A read key on every operation of interfaces A and B, driven by their OpenAPI schema (issue 44, item 3):
each operation that writes documents the read key's 403 in its interface's error shape and answers
exactly that, writing nothing; each one that reads answers without it.

C (the shortener) has no OpenAPI schema: its read tokens are tested in tests/shortener/test_token_scope.py.
"""

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework import status

from common.permissions import READ_ONLY_KEY
from pastes import services as paste_services
from pastes.attachments import attachment_add
from pastes.models import ApiKey as PastesKey
from pastes.models import Comment
from reports.models import ApiKey as ReportsKey
from reports.models import Webhook
from tests.pastes.attachment_fixtures import PDF_BYTES, use_filesystem_storage
from tests.pastes.factories import PasteFactory
from tests.reports.audits.factories import done_audit
from tests.reports.factories import ReportFactory

pytestmark = pytest.mark.django_db

WRITES = ("post", "put", "patch", "delete")
# Each interface: its paths, how its key is sent, the 403 a read key gets, and that shape's schema.
INTERFACES = {
    "reports": {
        "prefix": "/api/v1/",
        "header": "Bearer {key}",
        "key_model": ReportsKey,
        "body": {"message": READ_ONLY_KEY, "status": 403},
        "schema": "ReadOnlyKeyError",
    },
    "pastes": {
        "prefix": "/pastes/",
        "header": "{key}",
        "key_model": PastesKey,
        "body": {"code": 403, "message": READ_ONLY_KEY},
        "schema": "Error",
    },
}


@pytest.fixture
def schema(client) -> dict:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == status.HTTP_200_OK
    return response.json()


def operations(schema: dict, interface: str, methods: tuple[str, ...]) -> list[tuple[str, str, dict]]:
    prefix = INTERFACES[interface]["prefix"]
    return [
        (path, method, operation)
        for path, path_item in schema["paths"].items()
        if path.startswith(prefix)
        for method, operation in path_item.items()
        if method in methods
    ]


@pytest.fixture
def objects(user, settings, tmp_path) -> dict[str, object]:
    """One of everything the paths name, all the key owner's."""
    report = ReportFactory(owner=user)
    webhook = Webhook.objects.create(
        project=report.project, url="https://hooks.example/", events=["report.done"], secret="s" * 20
    )
    audit = done_audit(user, host="audit.example")
    paste = PasteFactory(owner=user, discussion=True)  # with a comment: the discussion's delete is a write too
    comment = Comment.objects.create(paste=paste, nickname="Ann", text="hi")
    # and an edit: removing a revision's content is a write too
    paste_services.paste_update(paste=paste, changes={"content": "edited"})
    # and an attachment, which a read key may download but not remove
    use_filesystem_storage(settings, tmp_path / "attachments")
    attachment = attachment_add(paste=paste, upload=SimpleUploadedFile("a.pdf", PDF_BYTES, "application/pdf"))
    return {
        "report": report.pk,
        "audit": audit.pk,
        "project": report.project.name,
        "webhook_id": webhook.pk,
        "paste_id": paste.pk,
        "comment_id": comment.pk,
        "number": paste.revisions.get().number,
        "attachment_id": attachment.pk,
        "username": user.username,
        "what": "pages",
        "fmt": "csv",
    }


def concrete(path: str, objects: dict[str, object]) -> str:
    values = {**objects, "id": objects["audit" if path.startswith("/api/v1/audits") else "report"]}
    return path.format(**values)


def every_row() -> dict[str, list]:
    """Every row of the interfaces' and the accounts' tables, to see that nothing was written."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for app in ("reports", "pastes")
        for model in apps.get_app_config(app).get_models()
        if model._meta.model_name not in {"apikey"}  # last_used_at is a read's own bookkeeping
    }


@pytest.mark.parametrize("interface", INTERFACES)
def test_every_write_operation_documents_the_read_keys_403_in_its_interfaces_shape(schema, interface):
    spec = INTERFACES[interface]
    writes = operations(schema, interface, WRITES)

    assert len(writes) >= 3
    for path, method, operation in writes:
        documented = operation["responses"].get("403")
        assert documented is not None, f"{method.upper()} {path}"
        assert READ_ONLY_KEY in documented["description"], f"{method.upper()} {path}"
        body_schema = documented["content"]["application/json"]["schema"]
        assert body_schema == {"$ref": f"#/components/schemas/{spec['schema']}"}, f"{method.upper()} {path}"
    shape = schema["components"]["schemas"][spec["schema"]]["properties"]
    assert set(shape) == set(spec["body"])


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_read_key_gets_exactly_that_403_on_every_write_operation_and_nothing_is_written(
    schema, interface, user, objects
):
    spec = INTERFACES[interface]
    raw_key = spec["key_model"].issue(user=user, scope="read")[1]
    client = Client(HTTP_AUTHORIZATION=spec["header"].format(key=raw_key))
    before = every_row()

    answers = {}
    for path, method, _operation in operations(schema, interface, WRITES):
        url = concrete(path, objects)
        response = getattr(client, method)(url, "{}", content_type="application/json")
        answers[f"{method.upper()} {path}"] = (response.status_code, response.json())

    assert answers == dict.fromkeys(answers, (403, spec["body"]))
    assert every_row() == before


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_read_key_is_never_refused_a_read_operation(schema, interface, user, objects):
    spec = INTERFACES[interface]
    raw_key = spec["key_model"].issue(user=user, scope="read")[1]
    client = Client(HTTP_AUTHORIZATION=spec["header"].format(key=raw_key))

    answers = {}
    for path, _method, _operation in operations(schema, interface, ("get",)):
        query = {"with": objects["audit" if path.startswith("/api/v1/audits") else "report"]}
        answers[f"GET {path}"] = client.get(concrete(path, objects), query if "compare" in path else {}).status_code

    assert answers
    assert {name: code for name, code in answers.items() if code == 403 or code >= 500} == {}
