"""Finished audits made directly, for the API and page tests that need no crawl."""

from django.utils import timezone

from reports.audits import summary
from reports.models import Audit, Project, Report


def issue(check: str, category: str, importance: str, pages: list[Report]) -> dict:
    return {
        "category": category,
        "check": check,
        "importance": importance,
        "pages_count": len(pages),
        "pages": [{"id": page.pk, "url": page.url} for page in pages],
    }


def done_audit(owner, *, host: str = "shop.example", score: int = 80, failing: dict | None = None, **fields) -> Audit:
    """A done audit of https://{host}/ with two analysed pages; `failing` = {check: (category, importance)}
    fails on the first page."""
    project, _ = Project.objects.get_or_create(owner=owner, name=host)
    audit = Audit.objects.create(
        owner=owner,
        project=project,
        url=f"https://{host}/",
        status=Audit.Status.RUNNING,
        max_pages=fields.pop("max_pages", 50),
        **fields,
    )
    failing = failing or {}
    pages = []
    for path in ("", "about"):
        results = {"seo": {"title": {"passed": True, "importance": "high"}}}
        for check, (category, importance) in failing.items():
            if not path:
                results.setdefault(category, {})[check] = {"passed": False, "importance": importance}
        pages.append(
            Report.objects.create(
                owner=owner,
                project=project,
                audit=audit,
                url=f"https://{host}/{path}",
                status=Report.Status.DONE,
                score=score,
                result="good" if score >= 80 else "decent",
                score_seo=score,
                results=results,
                generated_at=timezone.now(),
            )
        )
    audit_summary = {
        "score": score,
        "result": "good" if score >= 80 else "decent",
        "scores": {"seo": score, "performance": None, "security": None, "accessibility": None, "miscellaneous": None},
        "pages_analysed": 2,
        "pages_failed": 0,
        "issues": sorted(
            (issue(check, category, importance, pages[:1]) for check, (category, importance) in failing.items()),
            key=summary.issue_order,
        ),
    }
    Audit.objects.filter(pk=audit.pk).update(
        status=Audit.Status.DONE, summary=audit_summary, pages_found=2, pages_done=2, finished_at=timezone.now()
    )
    audit.refresh_from_db()
    return audit
