"""factory-boy factories for interface A's records (made without running the analysis)."""

import factory
from django.contrib.auth.hashers import make_password
from django.utils import timezone

from reports.analysis import config, scoring
from reports.models import Project, Report
from tests.factories import UserFactory

SAMPLE_RESULTS = {
    "seo": {
        "title": {"passed": True, "importance": "high", "value": "Acme Garden Tools", "errors": {}},
        "image_keywords": {
            "passed": False,
            "importance": "high",
            "value": None,
            "errors": {"missing": ["/images/photo.jpg", "/images/banner.png"]},
        },
    },
    "performance": {
        "page_size": {"passed": True, "importance": "medium", "value": 20480, "errors": {}},
    },
    "security": {
        "htst": {"passed": False, "importance": "low", "value": None, "errors": {"missing": None}},
    },
    "miscellaneous": {
        "charset": {"passed": True, "importance": "medium", "value": "utf-8", "errors": {}},
    },
}


def rating_for(score: int) -> str:
    return "good" if score >= 80 else "decent" if score >= 50 else "bad"


def category_score(category: str):
    """The category's score from the report's results, as the engine makes it (None when not analysed)."""

    def compute(report) -> int | None:
        checks = report.results.get(category) if isinstance(report.results, dict) else None
        if report.score is None or not isinstance(checks, dict):
            return None
        weights, bands = config.importance_weights(), config.rating_bands()
        # Tests that store made-up results get a score from the well-formed checks only.
        results = {
            name: {key: check for key, check in checks.items() if isinstance(check, dict) and "passed" in check}
            for name, checks in report.results.items()
            if isinstance(checks, dict)
        }
        return scoring.category_scores(results, weights, bands)[category]

    return factory.LazyAttribute(compute)


class ProjectFactory(factory.django.DjangoModelFactory):
    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"site{n}.example")

    class Meta:
        model = Project


class ReportFactory(factory.django.DjangoModelFactory):
    owner = factory.SubFactory(UserFactory)
    project = factory.SubFactory(ProjectFactory, owner=factory.SelfAttribute("..owner"))
    url = factory.LazyAttributeSequence(lambda report, n: f"https://{report.project.name}/page-{n}")
    score = 85
    result = factory.LazyAttribute(lambda report: rating_for(report.score))
    results = factory.LazyFunction(lambda: SAMPLE_RESULTS)
    score_seo = category_score("seo")
    score_performance = category_score("performance")
    score_security = category_score("security")
    score_accessibility = category_score("accessibility")
    score_miscellaneous = category_score("miscellaneous")
    privacy = factory.LazyAttribute(
        lambda report: Report.Privacy.PASSWORD if report.page_password else Report.Privacy.PUBLIC
    )
    password = factory.LazyAttribute(lambda report: make_password(report.page_password) if report.page_password else "")
    generated_at = factory.LazyFunction(timezone.now)
    status = Report.Status.DONE
    analysis_run = 1

    class Meta:
        model = Report

    class Params:
        page_password = ""  # a raw password makes a password-protected report
