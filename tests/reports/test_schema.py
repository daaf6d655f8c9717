import pytest

pytestmark = pytest.mark.django_db


def test_api_schema_documents_the_reports_api(client):
    response = client.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    assert {"/api/v1/reports/", "/api/v1/reports/{id}/", "/api/v1/projects/", "/api/v1/projects/{project}/"} <= set(
        schema["paths"]
    )
    assert schema["components"]["securitySchemes"]["reportsApiKey"]["scheme"] == "bearer"
    list_parameters = {parameter["name"] for parameter in schema["paths"]["/api/v1/reports/"]["get"]["parameters"]}
    assert list_parameters == {"page", "per_page", "search", "search_by", "project", "result", "sort_by", "sort"}
