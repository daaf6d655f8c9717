"""Writes of interface A that run the analysis: every caller (API, admin) goes through here.

The analysis runs before any write and outside any transaction (it fetches a
page over the network): if it fails, AnalysisFailed names the cause
and nothing is stored or changed.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from reports.analysis import AnalysisError, AnalysisResult, analyze
from reports.errors import AnalysisFailed
from reports.models import Project, Report


def _analyze(url: str) -> AnalysisResult:
    try:
        return analyze(url)
    except AnalysisError as exc:
        raise AnalysisFailed(exc) from exc


def _apply_analysis(report: Report, analysis: AnalysisResult) -> None:
    report.score = analysis.score
    report.result = analysis.rating
    report.results = analysis.results
    report.generated_at = timezone.now()


def project_get_or_create(*, owner: AbstractBaseUser, name: str) -> Project:
    # get_or_create retries the lookup when a parallel request inserted the same
    # (owner, name) first: the unique constraint decides, so both share one project.
    # The row lock makes a parallel project delete wait until the caller's transaction
    # commits, so a report is never written into a project that is being deleted.
    with transaction.atomic():
        project, _ = Project.objects.select_for_update().get_or_create(owner=owner, name=name)
    return project


def report_create(
    *, owner: AbstractBaseUser, url: str, privacy: int = Report.Privacy.PUBLIC, password: str = ""
) -> Report:
    """Analyse `url` and store the report in the project of its host (made if need be)."""
    analysis = _analyze(url)
    with transaction.atomic():
        project = project_get_or_create(owner=owner, name=Project.name_for_url(url))
        report = Report(owner=owner, project=project, url=url)
        _apply_analysis(report, analysis)
        report.set_privacy(privacy, password)
        report.full_clean()
        report.save()
    return report


def report_update(
    *, report: Report, privacy: int | None = None, password: str | None = None, rerun: bool = False
) -> Report:
    """Change the page's privacy/password and, with `rerun`, analyse the URL again."""
    analysis = _analyze(report.url) if rerun else None
    changed = ["updated_at"]
    if privacy is not None or password:
        report.set_privacy(report.privacy if privacy is None else privacy, password)
        changed += ["privacy", "password"]
    if analysis is not None:
        _apply_analysis(report, analysis)
        changed += ["score", "result", "results", "generated_at"]
    report.full_clean()
    # Only the fields this call changed: a parallel update of the others is kept.
    report.save(update_fields=changed)
    return report


def report_refresh(*, report: Report) -> Report:
    """Analyse the report's URL again: new results, score, rating and generated_at."""
    return report_update(report=report, rerun=True)


def project_delete(*, project: Project) -> None:
    """Delete the project and, through the database cascade, all its reports."""
    project.delete()
