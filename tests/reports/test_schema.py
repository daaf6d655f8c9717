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
    categories = ("seo", "performance", "security", "accessibility", "miscellaneous")
    assert list_parameters == {
        "page",
        "per_page",
        "after",
        "before",
        "search",
        "search_by",
        "project",
        "result",
        "min_score",
        *(f"min_score_{category}" for category in categories),
        "sort_by",
        "sort",
    }


def test_api_schema_documents_the_category_scores(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    components = schema["components"]["schemas"]
    assert components["Report"]["properties"]["scores"]["readOnly"] is True
    scores = components["CategoryScores"]["properties"]
    assert set(scores) == {"seo", "performance", "security", "accessibility", "miscellaneous"}
    assert scores["seo"] == {"type": "integer", "maximum": 100, "minimum": 0, "nullable": True}
