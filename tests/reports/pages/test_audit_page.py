"""The site audit page, /audits/<id>, and its comparison, for each privacy mode and each visitor."""

import pytest

from reports.models import Audit
from tests.reports.audits.factories import done_audit

pytestmark = pytest.mark.django_db


def test_a_done_audit_shows_its_mean_score_grouped_issues_worst_first_and_pages(client, user):
    audit = done_audit(user, score=70, failing={"hsts": ("security", "low"), "title": ("seo", "high")})

    response = client.get(f"/audits/{audit.pk}")

    assert response.status_code == 200
    html = response.content.decode()
    assert "Site audit</h1>" in html
    assert "Mean score 70 out of 100" in html
    assert html.index('data-testid="issue-title"') < html.index('data-testid="issue-hsts"')
    assert "fails on 1 page" in html
    assert "https://shop.example/about" in html
    assert 'http-equiv="refresh"' not in html
    assert not response.has_header("Cache-Control") or "no-store" not in response["Cache-Control"]


def test_a_running_audit_shows_its_progress_and_reloads(client, user):
    audit = done_audit(user)
    Audit.objects.filter(pk=audit.pk).update(status="running", finished_at=None, pages_done=1, pages_found=2)

    html = client.get(f"/audits/{audit.pk}").content.decode()

    assert "Auditing the site</h1>" in html
    assert "2 pages found" in html and "1 analysed" in html
    assert '<meta http-equiv="refresh" content="3">' in html
    assert "Issues, worst first" not in html


def test_a_private_audit_is_404_to_anonymous_and_other_users_and_shown_to_its_owner(client, user, other_user):
    audit = done_audit(user, privacy=Audit.Privacy.PRIVATE)

    assert client.get(f"/audits/{audit.pk}").status_code == 404
    client.force_login(other_user)
    assert client.get(f"/audits/{audit.pk}").status_code == 404
    client.force_login(user)
    response = client.get(f"/audits/{audit.pk}")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_a_password_protected_audit_asks_for_its_password_and_then_opens(client, user):
    audit = done_audit(user)
    audit.set_privacy(Audit.Privacy.PASSWORD, "s3cret")
    audit.save()

    locked = client.get(f"/audits/{audit.pk}")
    assert "This site audit is password-protected" in locked.content.decode()
    assert "Mean score" not in locked.content.decode()
    wrong = client.post(f"/audits/{audit.pk}", {"password": "nope"})
    assert "The password is incorrect." in wrong.content.decode()
    right = client.post(f"/audits/{audit.pk}", {"password": "s3cret"})
    assert right.status_code == 302
    assert "Mean score" in client.get(f"/audits/{audit.pk}").content.decode()


def test_an_unknown_audit_is_404(client):
    assert client.get("/audits/999999").status_code == 404


def test_the_page_links_to_and_shows_the_comparison_with_the_previous_audit(client, user):
    before = done_audit(user, score=90)
    now = done_audit(user, score=70, failing={"title": ("seo", "high")})

    html = client.get(f"/audits/{now.pk}").content.decode()
    assert f"/audits/{now.pk}/compare?with={before.pk}" in html

    compared = client.get(f"/audits/{now.pk}/compare?with={before.pk}")
    assert compared.status_code == 200
    text = compared.content.decode()
    assert "1 regressed" in text
    assert 'data-testid="check-title"' in text
    assert "failing on 0 → 1 page" in text


def test_the_comparison_is_404_without_a_readable_baseline(client, user, other_user):
    now = done_audit(user)
    hidden = done_audit(other_user, privacy=Audit.Privacy.PRIVATE)

    assert client.get(f"/audits/{now.pk}/compare").status_code == 404
    assert client.get(f"/audits/{now.pk}/compare?with={hidden.pk}").status_code == 404
