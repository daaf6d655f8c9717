"""Interface A's records: API keys, projects (one per analysed host) and reports.

Deletes cascade in the database (`DB_CASCADE`): deleting a project removes every
report of it in the same statement, including one inserted by a request that
raced the delete, so no report can outlive its project.
"""

from typing import Self
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Cast, Left
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from common.api_keys import AbstractApiKey


class ApiKey(AbstractApiKey):
    """A key for interface A (`Authorization: Bearer <key>`)."""

    key_prefix = "rpt_"

    class Meta(AbstractApiKey.Meta):
        verbose_name = "reports API key"


class ProjectSchedule(models.TextChoices):
    """How often a project is re-run by itself (reports/schedules.py)."""

    NONE = "none", pgettext_lazy("schedule", "None")
    DAILY = "daily", _("Daily")
    WEEKLY = "weekly", _("Weekly")


class Project(models.Model):
    """The reports of one owner about one host; made by the first report of that host."""

    Schedule = ProjectSchedule

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DB_CASCADE,
        related_name="report_projects",
        # The unique (owner, name) constraint below serves every lookup by owner.
        db_index=False,
    )
    name = models.CharField(max_length=255, help_text="The host of the project's URLs.")
    budget = models.JSONField(
        default=dict,
        blank=True,
        help_text='What its reports must meet (reports/budgets.py): {"min_score", "categories", "checks"}, or {}.',
    )
    alert_email = models.EmailField(
        blank=True, default="", help_text="Where budget.failed and check.regressed alerts are mailed; empty for none."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Kept by database triggers on reports_report (migration 0008_scale), whoever inserts or deletes a
    # report, cascades included: the report lists' `total` reads it instead of counting 10⁶ rows.
    report_count = models.PositiveIntegerField(default=0, editable=False, help_text="How many reports it has.")
    schedule = models.CharField(
        max_length=6,
        choices=ProjectSchedule.choices,
        default=ProjectSchedule.NONE,
        help_text="How often the project is re-run (its reports' URLs analysed again).",
    )
    # Stored, not derived from last_run_at: the due time survives restarts, and whoever runs
    # it claims the period by moving it on (reports/schedules.py).
    next_run_at = models.DateTimeField(null=True, blank=True, help_text="When the next scheduled re-run is due.")
    last_run_at = models.DateTimeField(null=True, blank=True, help_text="When the last scheduled re-run started.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="reports_project_owner_name_uniq"),
            # reports/budgets.py reads keys of it; anything but an object would be a bug upstream.
            models.CheckConstraint(
                condition=Q(budget__has_any_keys=["min_score", "categories", "checks"]) | Q(budget={}),
                name="reports_project_budget_object",
            ),
            models.CheckConstraint(
                condition=Q(schedule__in=ProjectSchedule.values), name="reports_project_schedule_valid"
            ),
            # A schedule has a due time and only a schedule has one: the workers look for due ones.
            models.CheckConstraint(
                condition=(Q(schedule=ProjectSchedule.NONE) & Q(next_run_at__isnull=True))
                | (~Q(schedule=ProjectSchedule.NONE) & Q(next_run_at__isnull=False)),
                name="reports_project_next_run_iff_scheduled",
            ),
        ]
        indexes = [
            # GET /projects sorted by created_at (the default sort), ending in its tiebreak: the
            # pager's cursors seek (created_at, id) in it (common.paging.Keyset).
            models.Index(fields=["owner", "created_at", "id"], name="reports_project_owner_new_id"),
            # The workers' look for due schedules (schedules.due_projects): few rows, whatever the projects.
            models.Index(
                fields=["next_run_at"], condition=Q(next_run_at__isnull=False), name="reports_project_schedule_due"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def name_for_url(url: str) -> str:
        return (urlsplit(url).hostname or "").lower()


class ReportQuerySet(models.QuerySet):
    def owned_by(self, user: models.Model) -> Self:
        return self.filter(owner=user)

    def with_results_text(self) -> Self:
        """Fetch `results` as JSON text only (`results_text`), for responses that pass it on as it is.

        Decoding ~50 checks per report and encoding them again was most of a report list's
        CPU time. The text keeps the database's spacing (`{"seo": {...}}`).
        """
        return self.defer("results").annotate(results_text=Cast("results", models.TextField()))


# Module level so that Report.Meta's constraints can name them (a nested class cannot see its siblings).
class ReportResult(models.TextChoices):
    GOOD = "good", _("Good")
    DECENT = "decent", _("Decent")
    BAD = "bad", _("Bad")


# sort_by=url orders by this many leading characters first (indexed), then by the whole URL and
# the id: the same order as (url, id), since a string never sorts before its own prefix. 512
# characters are at most 2,048 bytes, under a B-tree entry's limit (about 2,700 bytes).
URL_SORT_PREFIX = 512


class ReportStatus(models.TextChoices):
    """Where the report's analysis is (reports/tasks.py)."""

    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


# The engine's categories (reports/analysis/checks), each with a score column `score_<category>`.
SCORE_CATEGORIES = ("seo", "performance", "security", "accessibility", "miscellaneous")


class ReportPrivacy(models.IntegerChoices):
    PUBLIC = 0, _("Public")
    PRIVATE = 1, _("Private")
    PASSWORD = 2, _("Password")


class Report(models.Model):
    """One analysis of one page, kept with its score and every check's result.

    The analysis runs on a task worker (reports/tasks.py). Until the first one is
    done, `result`, `score`, `results` and `generated_at` are empty; a re-run keeps
    the previous ones until it is done, and a failed one keeps them and says why in
    `error`.
    """

    Status = ReportStatus
    Result = ReportResult
    Privacy = ReportPrivacy
    URL_MAX_LENGTH = 2048
    URL_SORT_PREFIX = URL_SORT_PREFIX
    # The page password as typed; the stored hash has its own length.
    PASSWORD_MAX_LENGTH = 128

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DB_CASCADE,
        related_name="reports",
        # The composite owner indexes below serve every lookup by owner.
        db_index=False,
    )
    project = models.ForeignKey(Project, on_delete=models.DB_CASCADE, related_name="reports", db_index=False)
    # The site audit whose crawl found this page (reports/audits/), or null for a report of its own.
    # Deleting the audit deletes its pages, in the database like every cascade here.
    audit = models.ForeignKey(
        "Audit", on_delete=models.DB_CASCADE, null=True, blank=True, related_name="pages", db_index=False
    )
    url = models.CharField(max_length=URL_MAX_LENGTH)
    result = models.CharField(max_length=6, choices=Result.choices, blank=True, default="")
    score = models.PositiveSmallIntegerField(null=True, blank=True, help_text="0 to 100.")
    # One column per category rather than a JSON object: the lists filter on them
    # (min_score_seo=…) and the database holds each to 0-100 like the overall score.
    score_seo = models.PositiveSmallIntegerField(null=True, blank=True, help_text="SEO score, 0 to 100.")
    score_performance = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Performance score, 0 to 100."
    )
    score_security = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Security score, 0 to 100.")
    score_accessibility = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Accessibility score, 0 to 100."
    )
    score_miscellaneous = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Miscellaneous score, 0 to 100."
    )
    results = models.JSONField(default=dict, blank=True, help_text="Each check's outcome, grouped by category.")
    rendering = models.JSONField(
        default=dict, blank=True, help_text="Which document the page checks read: the HTML as served or as rendered."
    )
    status = models.CharField(max_length=7, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True, default="", help_text="Why the last analysis failed.")
    # Each analysis queued for the report gets the next number; a task runs only the
    # latest one, so a duplicate or superseded task does nothing (reports/tasks.py).
    analysis_run = models.PositiveIntegerField(default=0)
    # A running analysis renews this while it runs; past it, its worker is taken for dead
    # and the analysis is queued again. A queued one has it only when the task backend could
    # not take it (reports/tasks.py): it is queued again once the backend answers.
    lease_until = models.DateTimeField(null=True, blank=True)
    privacy = models.PositiveSmallIntegerField(choices=Privacy.choices, default=Privacy.PUBLIC)
    # A password hash (django.contrib.auth.hashers), set only while privacy is PASSWORD.
    password = models.CharField(max_length=128, blank=True, default="")
    generated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ReportQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__lte=100), name="reports_report_score_range"
            ),
            models.CheckConstraint(
                condition=Q(
                    *(
                        Q(**{f"score_{category}__isnull": True}) | Q(**{f"score_{category}__lte": 100})
                        for category in SCORE_CATEGORIES
                    )
                ),
                name="reports_report_category_scores_range",
            ),
            models.CheckConstraint(
                condition=Q(result__in=["", *ReportResult.values]), name="reports_report_result_valid"
            ),
            models.CheckConstraint(condition=Q(status__in=ReportStatus.values), name="reports_report_status_valid"),
            models.CheckConstraint(
                condition=~Q(status=ReportStatus.DONE)
                | (Q(score__isnull=False, generated_at__isnull=False) & ~Q(result="")),
                name="reports_report_done_has_result",
                violation_error_message="A done report has a score, a result and generated_at.",
            ),
            models.CheckConstraint(condition=Q(privacy__in=ReportPrivacy.values), name="reports_report_privacy_valid"),
            models.CheckConstraint(
                condition=(Q(privacy=ReportPrivacy.PASSWORD) & ~Q(password=""))
                | (~Q(privacy=ReportPrivacy.PASSWORD) & Q(password="")),
                name="reports_report_password_iff_protected",
                violation_error_message="A password-protected report needs a password, and only such a report has one.",
            ),
        ]
        indexes = [
            # GET /reports: the owner's reports by id (the default sort), by generated_at, by score
            # (sort_by=result) and filtered on result; each ends in the id, the sorts' tiebreak.
            models.Index(fields=["owner", "id"], name="reports_report_owner_id"),
            models.Index(fields=["owner", "generated_at", "id"], name="reports_report_owner_gen_id"),
            models.Index(fields=["owner", "score", "id"], name="reports_report_owner_score_id"),
            models.Index(fields=["owner", "result", "id"], name="reports_report_owner_result"),
            # sort_by=url: a bounded prefix, as a whole 2,048-character URL may exceed a B-tree entry.
            models.Index(F("owner"), Left("url", URL_SORT_PREFIX), name="reports_report_owner_url"),
            # search= (UPPER(url) LIKE '%…%', Django's icontains) is served on PostgreSQL by the
            # trigram index reports_report_url_trgm, which migration 0008_scale builds there and keeps
            # out of this list (SQLite has no such index type, and scans).
            # GET /reports?project=… and the cascade from a deleted project.
            models.Index(fields=["project", "id"], name="reports_report_project_id"),
            # An audit's pages (its summary, exports, page list, the cascade of its delete).
            models.Index(fields=["audit", "id"], condition=Q(audit__isnull=False), name="reports_report_audit_id"),
            # The project chart: a project's newest analysed reports.
            models.Index(fields=["project", "generated_at", "id"], name="reports_report_project_gen"),
            # requeue_stale_analyses(): unfinished analyses whose lease has passed.
            models.Index(
                fields=["status", "lease_until"],
                condition=Q(status__in=[ReportStatus.QUEUED, ReportStatus.RUNNING]),
                name="reports_report_unfinished",
            ),
        ]

    def __str__(self) -> str:
        return self.url

    def get_absolute_url(self) -> str:
        return reverse("reports:report-page", args=[self.pk])

    def clean(self) -> None:
        # Not expressible as a constraint: the database cannot compare across the foreign key.
        if self.project_id is not None and self.project.owner_id != self.owner_id:
            raise ValidationError({"project": "A report belongs to a project of its own owner."})
        if self.audit_id is not None and self.audit.project_id != self.project_id:
            raise ValidationError({"audit": "An audit's pages belong to the audit's project."})

    @property
    def scores(self) -> dict[str, int | None]:
        """Each category's score (null until the first analysis is done)."""
        return {category: getattr(self, f"score_{category}") for category in SCORE_CATEGORIES}

    def set_scores(self, scores: dict[str, int]) -> None:
        for category in SCORE_CATEGORIES:
            setattr(self, f"score_{category}", scores.get(category))

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def has_password(self) -> bool:
        return bool(self.password)

    def set_privacy(self, privacy: int, password: str | None = None) -> None:
        """Set the page's privacy; a password is kept (hashed) only for PASSWORD privacy."""
        self.privacy = privacy
        if privacy != self.Privacy.PASSWORD:
            self.password = ""
        elif password:
            self.password = make_password(password)

    def check_page_password(self, raw_password: str) -> bool:
        return bool(self.password) and check_password(raw_password, self.password)


class OwnerReportCount(models.Model):
    """How many reports an owner has, kept by database triggers (migration 0009_owner_report_count).

    The unfiltered `GET /api/v1/reports` reads it for `meta.total`: exact and one row, where
    COUNT(*) reads an index entry per report (~250 ms for 9·10⁵ reports) and summing the
    projects' `report_count` reads a row per project (10⁴ to 10⁵ for a long-lived account).
    The triggers fire on every insert, delete and change of owner, whoever makes them.
    """

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.DB_CASCADE, primary_key=True, related_name="+"
    )
    report_count = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.report_count}"


class OwnerProjectCount(models.Model):
    """How many projects an owner has, kept by database triggers on reports_project (migration
    0013_owner_project_count), for the unfiltered project lists' total: exact past the 1,000 that
    common.paging counts (an account with 10⁶ reports has 45,000 projects)."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.DB_CASCADE, primary_key=True, related_name="+"
    )
    project_count = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.project_count}"


class OwnerReportsVersion(models.Model):
    """A number per owner that goes up with every write to their reports, and to their projects'
    names and budgets, kept by database triggers (migration 0019_owner_reports_version).

    The API's answers to `GET /api/v1/reports` and `GET /api/v1/reports/{id}` are cached under it
    (reports/answer_cache.py): a cached answer is used only while the owner's number is the one it
    was made under, so whoever writes (a view, the analysis worker, the admin, a bulk update, a
    cascade), the next read is made anew. It is in the database because that is what every
    process shares, Redis or not.
    """

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.DB_CASCADE, primary_key=True, related_name="+"
    )
    version = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.version}"


class AuditStatus(models.TextChoices):
    """Where a site audit is (reports/audits/crawl.py)."""

    QUEUED = "queued", _("Queued")  # its start (robots.txt, sitemap, the first pages) is yet to run
    RUNNING = "running", _("Running")  # pages are being found and analysed
    DONE = "done", _("Done")  # every page found is analysed or failed; the summary is stored
    FAILED = "failed", _("Failed")  # the start page could not be crawled at all


class Audit(models.Model):
    """A whole-site audit: a crawl from `url` whose every page becomes a Report of the project.

    The counters are recounted from the pages (`Report.audit`) under the audit's row lock
    each time a page finishes, so a page counted twice or lost by a killed worker cannot
    make them drift.
    """

    Status = AuditStatus
    Privacy = ReportPrivacy
    URL_MAX_LENGTH = Report.URL_MAX_LENGTH

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DB_CASCADE, related_name="audits", db_index=False
    )
    project = models.ForeignKey(Project, on_delete=models.DB_CASCADE, related_name="audits", db_index=False)
    url = models.CharField(max_length=URL_MAX_LENGTH, help_text="The start page.")
    status = models.CharField(max_length=7, choices=AuditStatus.choices, default=AuditStatus.QUEUED)
    error = models.TextField(blank=True, default="", help_text="Why the audit failed.")
    max_pages = models.PositiveIntegerField(default=50)
    pages_found = models.PositiveIntegerField(default=0, help_text="Pages queued for analysis so far.")
    pages_done = models.PositiveIntegerField(default=0, help_text="Pages analysed.")
    pages_failed = models.PositiveIntegerField(
        default=0, help_text="Pages that could not be analysed (404, 5xx, not HTML, redirect loop, timeout, refused)."
    )
    # What the start task read from robots.txt, kept so that every page task filters its links
    # without fetching it again: its text, and the Crawl-delay (seconds) for our user agent.
    robots_txt = models.TextField(blank=True, default="")
    crawl_delay = models.FloatField(default=0)
    # The start task holds this while it runs; past it, its worker is taken for dead and the
    # start is queued again (reports/audits/crawl.py, requeue_stale_audits).
    lease_until = models.DateTimeField(null=True, blank=True)
    # How many times a worker took the start; past REPORTS_AUDIT_START_ATTEMPTS the sweep fails the
    # audit instead of queuing it again (a start that kills its worker would otherwise run forever).
    start_attempts = models.PositiveSmallIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True, help_text="Stored once the audit is done.")
    privacy = models.PositiveSmallIntegerField(choices=ReportPrivacy.choices, default=ReportPrivacy.PUBLIC)
    password = models.CharField(max_length=128, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(status__in=AuditStatus.values), name="reports_audit_status_valid"),
            models.CheckConstraint(condition=Q(max_pages__gte=1), name="reports_audit_max_pages_positive"),
            models.CheckConstraint(
                condition=Q(pages_found__lte=F("max_pages")), name="reports_audit_found_within_max_pages"
            ),
            models.CheckConstraint(
                condition=Q(pages_done__lte=F("pages_found") - F("pages_failed")),
                name="reports_audit_finished_within_found",
            ),
            models.CheckConstraint(
                condition=~Q(status__in=[AuditStatus.DONE, AuditStatus.FAILED]) | Q(finished_at__isnull=False),
                name="reports_audit_finished_has_time",
            ),
            models.CheckConstraint(condition=Q(privacy__in=ReportPrivacy.values), name="reports_audit_privacy_valid"),
            models.CheckConstraint(
                condition=(Q(privacy=ReportPrivacy.PASSWORD) & ~Q(password=""))
                | (~Q(privacy=ReportPrivacy.PASSWORD) & Q(password="")),
                name="reports_audit_password_iff_protected",
            ),
        ]
        indexes = [
            # GET /audits: the owner's audits by id (the default sort; keyset-friendly), by project.
            models.Index(fields=["owner", "id"], name="reports_audit_owner_id"),
            models.Index(fields=["project", "id"], name="reports_audit_project_id"),
            # requeue_stale_audits(): starts whose worker died.
            models.Index(
                fields=["status", "lease_until"],
                condition=Q(status__in=[AuditStatus.QUEUED, AuditStatus.RUNNING]),
                name="reports_audit_unfinished",
            ),
        ]

    def __str__(self) -> str:
        return self.url

    def get_absolute_url(self) -> str:
        return reverse("reports:audit-page", args=[self.pk])

    def clean(self) -> None:
        if self.project_id is not None and self.project.owner_id != self.owner_id:
            raise ValidationError({"project": "An audit belongs to a project of its own owner."})

    @property
    def is_finished(self) -> bool:
        return self.status in (AuditStatus.DONE, AuditStatus.FAILED)

    @property
    def has_password(self) -> bool:
        return bool(self.password)

    set_privacy = Report.set_privacy
    check_page_password = Report.check_page_password


class CrawlHostSlot(models.Model):
    """One of the REPORTS_AUDIT_HOST_FETCHES fetch slots of a host, shared by every worker (reports/audits/hosts.py).

    A crawl takes a free (or expired) slot before fetching a page of the host and gives it
    back after; `not_before` spaces the fetches by the host's Crawl-delay. In the database,
    not in process memory, so the limit holds across threads, workers and machines.
    """

    host = models.CharField(max_length=255)
    slot = models.PositiveSmallIntegerField()
    holder = models.CharField(max_length=64, blank=True, default="", help_text="Who holds it; empty when free.")
    held_until = models.DateTimeField(null=True, blank=True, help_text="Past it, a dead holder's slot is free.")
    not_before = models.DateTimeField(null=True, blank=True, help_text="The next fetch starts no sooner (Crawl-delay).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["host", "slot"], name="reports_crawlhostslot_host_slot_uniq"),
            models.CheckConstraint(
                condition=Q(holder="") | Q(held_until__isnull=False), name="reports_crawlhostslot_held_has_expiry"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.host} #{self.slot}"


class WebhookEvent(models.TextChoices):
    AUDIT_DONE = "audit.done", "Audit done"
    REPORT_DONE = "report.done", "Report done"
    BUDGET_FAILED = "budget.failed", "Budget failed"
    CHECK_REGRESSED = "check.regressed", "Check regressed"


class Webhook(models.Model):
    """A URL that receives a project's events, signed with its secret (reports/webhooks.py)."""

    Event = WebhookEvent
    URL_MAX_LENGTH = 2048

    project = models.ForeignKey(Project, on_delete=models.DB_CASCADE, related_name="webhooks")
    url = models.CharField(max_length=URL_MAX_LENGTH)
    events = models.JSONField(help_text="The events it receives: a list of WebhookEvent values.")
    # Kept as it is, not hashed: every delivery signs its body with it (HMAC-SHA256).
    secret = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(secret=""), name="reports_webhook_has_secret"),
            models.CheckConstraint(condition=~Q(events=[]), name="reports_webhook_has_events"),
        ]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed"


class WebhookDelivery(models.Model):
    """One event sent to one webhook: the exact body signed, and how each attempt went."""

    Status = DeliveryStatus

    webhook = models.ForeignKey(Webhook, on_delete=models.DB_CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32, choices=WebhookEvent.choices)
    # The raw body, kept so that every retry sends (and signs) the same bytes.
    body = models.TextField()
    status = models.CharField(max_length=9, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="", help_text="Why the last attempt failed.")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.CheckConstraint(condition=Q(status__in=DeliveryStatus.values), name="reports_delivery_status_valid"),
            models.CheckConstraint(
                condition=~Q(status=DeliveryStatus.DELIVERED) | Q(delivered_at__isnull=False),
                name="reports_delivery_delivered_has_time",
            ),
        ]
        indexes = [models.Index(fields=["webhook", "-created_at"], name="reports_delivery_webhook_time")]

    def __str__(self) -> str:
        return f"{self.event} → {self.webhook.url}"
