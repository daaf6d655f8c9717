"""A whole-site audit crawls the local audit site: what it fetched, what it did not, and what it counted."""

import pytest
from rest_framework import status

from reports.models import Report

URL = "/api/v1/audits"


@pytest.mark.django_db
def test_an_audit_crawls_the_site_and_keeps_to_what_it_may_fetch(owner_client, audit_site):
    response = owner_client.post(URL, {"url": audit_site.url("/")}, format="json")

    assert response.status_code == status.HTTP_202_ACCEPTED
    body = response.json()
    audit_id = body["data"]["id"]
    assert response["Location"].endswith(f"/api/v1/audits/{audit_id}")
    audit = owner_client.get(f"{URL}/{audit_id}").json()["data"]
    assert audit["status"] == "done"
    pages = dict(Report.objects.filter(audit_id=audit_id).values_list("url", "status"))
    ok = {"/", "/a", "/b", "/c?x=1", "/from-sitemap"}
    failed = {"/loop", "/missing", "/error", "/file.pdf", "/never", "/to-private"}
    assert pages == {audit_site.url(p): ("done" if p in ok else "failed") for p in ok | failed}
    assert (audit["pages_found"], audit["pages_done"], audit["pages_failed"]) == (11, 5, 6)
    # robots.txt's Disallow: /private/ holds for links and the sitemap alike.
    assert not audit_site.fetched("/private/secret")
    assert not audit_site.fetched("/private/in-sitemap")
    assert audit_site.fetched("/from-sitemap")
    errors = dict(Report.objects.filter(audit_id=audit_id, status="failed").values_list("url", "error"))
    assert "redirected more than" in errors[audit_site.url("/loop")]
    assert "404" in errors[audit_site.url("/missing")]
    assert "500" in errors[audit_site.url("/error")]
    assert "not point to an HTML page" in errors[audit_site.url("/file.pdf")]
    assert "did not answer within" in errors[audit_site.url("/never")]
    refused = errors[audit_site.url("/to-private")]
    assert "127.0.0.2" in refused and "not allowed" in refused  # the SSRF guard, before any connection
