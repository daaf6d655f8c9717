import pytest
from rest_framework import status

pytestmark = pytest.mark.django_db

PATHS = {
    "/pastes/create": "post",
    "/pastes/paste/@{paste_id}": "get",
    "/pastes/paste/@{paste_id}/raw": "get",
    "/pastes/edit/{paste_id}": "patch",
    "/pastes/delete/{paste_id}": "delete",
    "/pastes/accounts/@{username}": "get",
    "/pastes/paste/@{paste_id}/files/{number}/raw": "get",
    "/pastes/paste/@{paste_id}/revisions": "get",
    "/pastes/paste/@{paste_id}/revisions/{number}": "get",
    "/pastes/paste/@{paste_id}/attachments": "post",
}
# The discussion (issue 47): several methods on one path.
COMMENT_PATHS = {
    "/pastes/paste/@{paste_id}/comments": {"get", "post"},
    "/pastes/paste/@{paste_id}/comments/{comment_id}": {"delete"},
}
# Paths with a second operation (issue 47: the owner removes a revision's content).
MORE_OPERATIONS = {"/pastes/paste/@{paste_id}/revisions/{number}": {"delete"}}
# An attachment is read and removed at its own URL (issue 47).
ATTACHMENT_PATHS = {"/pastes/paste/@{paste_id}/attachments/{attachment_id}": {"get", "delete"}}


@pytest.fixture
def schema(client) -> dict:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == status.HTTP_200_OK
    return response.json()


def test_schema_documents_every_paste_operation(schema):
    documented = {path: set(operations) for path, operations in schema["paths"].items() if path.startswith("/pastes/")}

    operations = {path: {method} | MORE_OPERATIONS.get(path, set()) for path, method in PATHS.items()}
    assert documented == operations | COMMENT_PATHS | ATTACHMENT_PATHS


def test_schema_documents_the_error_shape_on_every_paste_operation(schema):
    operations = [*PATHS.items(), *((path, method) for path, methods in COMMENT_PATHS.items() for method in methods)]
    for path, method in operations:
        responses = schema["paths"][path][method]["responses"]
        errors = [code for code in responses if code.startswith(("4", "5"))]
        assert errors, path
        for code in errors:
            assert responses[code]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert set(schema["components"]["schemas"]["Error"]["properties"]) == {"code", "message"}


def test_schema_documents_the_paste_and_user_objects(schema):
    components = schema["components"]["schemas"]

    assert set(components["Paste"]["properties"]) == {
        "id",
        "name",
        "content",
        "created_at",
        "expiration",
        "exposure",
        "views",
        "burn_after_read",
        "encrypted",
        "password_protected",
        "discussion",
        "files",
        "attachments",
    }
    assert set(components["User"]["properties"]) == {
        "username",
        "avatar",
        "bio",
        "badges",
        "created_at",
        "last_login",
        "max_paste_chars",
        "max_attachment_bytes",
        "attachment_bytes",
        "pastes",
        "pastes_count",
    }
    # content or files (issue 47): the serializer asks for one of them, the schema for the name.
    assert components["PasteCreate"]["required"] == ["name"]


def test_schema_documents_the_bare_key_header(schema):
    assert schema["components"]["securitySchemes"]["pastesApiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": schema["components"]["securitySchemes"]["pastesApiKey"]["description"],
    }
    assert schema["paths"]["/pastes/create"]["post"]["security"] == [{"pastesApiKey": []}]


def test_schema_states_the_choices_made_where_the_spec_is_silent(schema):
    detail = schema["paths"]["/pastes/paste/@{paste_id}"]["get"]["description"]

    assert "HEAD requests neither count nor burn" in detail
    assert "exactly one gets it" in detail
