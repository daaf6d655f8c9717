"""Short links and the visits that count towards their unique-visit counter."""

import hashlib
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from common.api_keys import AbstractApiKey

# No look-alikes (0/O/o, 1/l/I/i), so a code read aloud or off paper is typed right.
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_MAX_LENGTH = 64
URL_MAX_LENGTH = 2048
# The generated links that "same user, same URL" gives back (the owner/URL constraint's condition).
DEDUPLICATED_LINKS = {
    "is_custom": False,
    "deleted_at__isnull": True,
    "expires_at__isnull": True,
    "max_visits__isnull": True,
    "password_hash": "",
}
# The redirects a link may answer with (issue 46); null keeps the server's default.
REDIRECT_STATUSES = (301, 302, 307, 308)
REDIRECT_STATUS_CHOICES = [(status, str(status)) for status in REDIRECT_STATUSES]
PREVIEW_TITLE_MAX = 300
PREVIEW_DESCRIPTION_MAX = 1000


# A host name (RFC 1035: at most 253 characters).
DOMAIN_MAX_LENGTH = 253


class ShortLink(models.Model):
    # "" is the default domain: the first of SHORTENER_DOMAINS (or SHORTENER_HOST), else the main
    # host's /<prefix>/. Stored empty rather than by name so that Lstu's one-domain instances, and
    # a renamed default domain, need no rewrite of every link (shortener/domains.py).
    domain = models.CharField(
        max_length=DOMAIN_MAX_LENGTH,
        blank=True,
        default="",
        db_default="",
        help_text="Host of the short URL; empty: the default domain (the first of SHORTENER_DOMAINS).",
    )
    code = models.CharField(max_length=CODE_MAX_LENGTH, help_text="Final path segment of the short URL.")
    url = models.URLField(max_length=URL_MAX_LENGTH, help_text="Target URL.")
    # Lets the "same user, same URL" lookup use an index whatever the URL's length.
    url_digest = models.CharField(max_length=64, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="short_links",
    )
    is_custom = models.BooleanField(default=False, help_text="The code was chosen by the owner.")
    counter = models.PositiveBigIntegerField(default=0, help_text="Unique visits: one per visitor per day.")
    created_at = models.DateTimeField(default=timezone.now)
    # Deleted links keep their code, so a spammer's code cannot be taken over by someone else.
    deleted_at = models.DateTimeField(null=True, blank=True)
    # Lifetime: past either limit the link answers 404 but stays, with its statistics.
    expires_at = models.DateTimeField(null=True, blank=True, help_text="The link stops redirecting then.")
    max_visits = models.PositiveIntegerField(
        null=True, blank=True, help_text="The link stops redirecting once its unique visits reach this."
    )
    # A Django password hash; empty: no password. A protected link is never followed by the
    # fast path: the view asks for the password first (views/password.py).
    password_hash = models.CharField(max_length=200, blank=True, default="", editable=False)
    # Moderation (shortener/moderation/): a disabled link answers 410 but keeps its code and stats.
    disabled_at = models.DateTimeField(null=True, blank=True, help_text="Disabled by an admin or the blocklist.")
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    # Visits counted by the shortener a link was imported from (shortener/importers/): shown
    # apart, never added to `counter`, which counts the unique visits seen here.
    imported_visits = models.PositiveBigIntegerField(default=0, help_text="Visits counted before the import.")
    # Redirect rules (issue 46, shortener/rules.py): `[{"when": {…}, "url": …}]`, first match wins,
    # else `url`. Stored as validated and normalised; each process compiles them once per copy.
    rules = models.JSONField(default=list, blank=True, help_text="Redirect rules, in order; first match wins.")
    forward_query = models.BooleanField(default=False, help_text="The visitor's query string goes to the target.")
    forward_path = models.BooleanField(default=False, help_text="/<code>/extra/path goes on to the target's path.")
    # Null: the server's default (302, or 301 with SHORTENER_REDIRECT_PERMANENT), as Lstu.
    redirect_status = models.PositiveSmallIntegerField(null=True, blank=True, choices=REDIRECT_STATUS_CHOICES)
    # What a chat or social app's preview shows (shortener/previews.py): fetched once at creation.
    preview_title = models.CharField(max_length=PREVIEW_TITLE_MAX, blank=True, default="")
    preview_description = models.CharField(max_length=PREVIEW_DESCRIPTION_MAX, blank=True, default="")
    preview_image = models.URLField(max_length=URL_MAX_LENGTH, blank=True, default="")

    class Meta:
        verbose_name = "short link"
        verbose_name_plural = "short links"
        constraints = [
            # The same code may exist on two domains (migration 0016 built this index concurrently).
            models.UniqueConstraint(fields=["domain", "code"], name="shortener_shortlink_domain_code_uniq"),
            # One generated code per user, domain and URL: a second request gets the first code back.
            # Links with a lifetime or a password are each their own, so they are left out.
            models.UniqueConstraint(
                fields=["owner", "domain", "url_digest"],
                condition=Q(
                    is_custom=False,
                    deleted_at__isnull=True,
                    expires_at__isnull=True,
                    max_visits__isnull=True,
                    password_hash="",
                ),
                name="shortener_shortlink_owner_domain_url_uniq",
            ),
            models.CheckConstraint(condition=~Q(code=""), name="shortener_shortlink_code_not_empty"),
            models.CheckConstraint(
                condition=Q(max_visits__isnull=True) | Q(max_visits__gte=1), name="shortener_shortlink_max_visits_min"
            ),
            models.CheckConstraint(
                condition=Q(redirect_status__isnull=True) | Q(redirect_status__in=REDIRECT_STATUSES),
                name="shortener_shortlink_redirect_status_valid",
            ),
        ]
        indexes = [
            # Each matches its list's whole ORDER BY, tiebreak included, so that a page is a seek
            # in the index and not a sort (docs/scale.md). Deleted links are in none of those lists.
            # The admin statistics, most visited first (links_by_popularity()).
            models.Index(
                fields=["-counter", "-created_at", "-id"],
                condition=Q(deleted_at__isnull=True),
                name="shortener_link_rank_idx",
            ),
            # Own statistics, the same order within one owner.
            models.Index(
                fields=["owner", "-counter", "-created_at", "-id"],
                condition=Q(deleted_at__isnull=True),
                name="shortener_link_owner_rank_idx",
            ),
            # GET /export, oldest first (links_for_export()).
            models.Index(
                fields=["owner", "created_at", "id"],
                condition=Q(deleted_at__isnull=True),
                name="shortener_link_export_idx",
            ),
            # The Django admin's list, newest first (it adds -pk itself); deleted links included.
            models.Index(fields=["-created_at", "-id"], name="shortener_link_created_idx"),
            # GET /fullstats: the live links that expire today (earlier days are tallied, LinkTally).
            models.Index(
                fields=["expires_at"],
                condition=Q(deleted_at__isnull=True, expires_at__isnull=False),
                name="shortener_link_expiry_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.domain}/{self.code} ---> {self.url}" if self.domain else f"{self.code} ---> {self.url}"

    def save(self, *args, **kwargs) -> None:
        self.url_digest = self.digest(self.url)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "url" in update_fields:
            kwargs["update_fields"] = {*update_fields, "url_digest"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        # url_digest is not a form field, so model forms (the admin) skip the owner/URL
        # constraint that uses it; check it here so an edit gets a message, not a 500.
        self.url_digest = self.digest(self.url)
        duplicate = (
            not self.is_custom
            and self.deleted_at is None
            and not self.has_lifetime
            and not self.password_hash
            and self.owner_id is not None
            and ShortLink.objects.filter(
                owner_id=self.owner_id, domain=self.domain, url_digest=self.url_digest, **DEDUPLICATED_LINKS
            )
            .exclude(pk=self.pk)
            .exists()
        )
        if duplicate:
            raise ValidationError({"url": "This owner already has a generated short link to this URL."})

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def is_protected(self) -> bool:
        return bool(self.password_hash)

    @property
    def is_disabled(self) -> bool:
        return self.disabled_at is not None

    @property
    def has_lifetime(self) -> bool:
        return self.expires_at is not None or self.max_visits is not None

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_used_up(self) -> bool:
        return self.max_visits is not None and self.counter >= self.max_visits

    @staticmethod
    def digest(url: str) -> str:
        return hashlib.sha256(url.encode()).hexdigest()

    @classmethod
    def generate_code(cls) -> str:
        return "".join(secrets.choice(CODE_ALPHABET) for _ in range(settings.SHORTENER_CODE_LENGTH))


class Visit(models.Model):
    """One visitor seen on one link on one UTC day: the row that makes the counter unique."""

    # No index of its own: the unique constraint's index starts with the link (one index
    # less for every visit inserted).
    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="+", db_index=False)
    # Keyed hash of address and User-Agent with a salt that changes every day; no raw address.
    visitor = models.CharField(max_length=32)
    day = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["link", "visitor", "day"], name="shortener_visit_once_per_day"),
        ]
        indexes = [
            # Pruning old days.
            models.Index(fields=["day"], name="shortener_visit_day_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.visitor} on {self.day}"


class DailyVisits(models.Model):
    """Unique visits of one link on one UTC day: what its chart reads, instead of the Visit rows.

    Written by the visit batch writer in the transaction that inserts the Visit rows (so the
    two always agree), and kept after the Visit rows of the day are pruned.
    """

    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField()
    visits = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "daily visits"
        constraints = [
            # The writer's upsert (ON CONFLICT) target; also serves a link's chart (link, day range).
            models.UniqueConstraint(fields=["link", "day"], name="shortener_dailyvisits_link_day_uniq"),
        ]
        indexes = [
            # Pruning old days.
            models.Index(fields=["day"], name="shortener_dailyvisits_day_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.visits} visit(s) of {self.link_id} on {self.day}"


class SiteDailyVisits(models.Model):
    """Unique visits of all links on one UTC day: the admin chart, 30 rows whatever the traffic."""

    day = models.DateField()
    visits = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "site daily visits"
        constraints = [
            models.UniqueConstraint(fields=["day"], name="shortener_sitedailyvisits_day_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.visits} visit(s) on {self.day}"


class LiveLinkCount(models.Model):
    """The number of live (not deleted) links, as the sum of a few rows, for the admin statistics' total.

    On PostgreSQL a trigger on the links table keeps it (migration 0006), so every way of adding,
    deleting or undeleting a link counts, the admin and the shell included. A link adds to the
    row of its connection's slot (backend pid modulo SLOTS), so that concurrent shortenings do not
    all wait for one row lock. Elsewhere (SQLite) the table stays empty and the links are counted.
    """

    SLOTS = 16

    slot = models.PositiveSmallIntegerField()
    live = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["slot"], name="shortener_livelinkcount_slot_uniq"),
        ]

    def __str__(self) -> str:
        return f"slot {self.slot}: {self.live}"


class LinkRankBucket(models.Model):
    """How many live links of one ranking share a counter value and a creation month (UTC).

    The rankings of GET /s/stats (most visited first, then newest: counter DESC, created_at
    DESC, id DESC) are cut into these buckets, each a contiguous range of the ranking's index.
    Summing bucket sizes in ranking order finds the bucket that holds the n-th link, so a
    middle page sums a few hundred buckets and then walks only within one bucket, instead of
    half the index (services/ranking.py, docs/scale.md). A month, not a day: at 10⁶ links day
    buckets were ~13,000 of ~76 links, and summing half of them cost more than the walk inside
    one (migration 0012). On PostgreSQL a statement trigger on the links table keeps the
    buckets (migrations 0010, 0012), whoever writes the links; elsewhere the table stays empty
    and the ranking's index is walked.
    """

    # The admin ranking (every live link); any other value is the owner's id (their own ranking).
    ALL = 0

    scope = models.BigIntegerField()
    counter = models.BigIntegerField()
    # The first day of the UTC month the links were created in.
    month = models.DateField()
    links = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "counter", "month"], name="shortener_linkrankbucket_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.links} link(s) of {self.scope} with {self.counter} visit(s) made in {self.month:%Y-%m}"


class LinkTally(models.Model):
    """Counts of links the public and own statistics need without counting rows (services/tallies.py).

    Keys: `links` (every link, deleted ones included: the Django admin's list), `generated`
    (links with a generated code, deleted ones included: their codes stay taken), `owner:<id>`
    (an owner's live links), `used_up` (live links whose visits reached `max_visits`),
    `expires:<YYYY-MM-DD>` (live, not used-up links expiring on that UTC day), and on PostgreSQL
    only `created:<YYYY-MM-DD>` (links created on that UTC day, deleted ones included: where the
    admin list's deep pages start, migration 0012).
    Kept on PostgreSQL by the same statement triggers as LinkRankBucket, on SQLite by row
    triggers (migration 0010, whose docstring says what a later rebuild of the links table needs).
    """

    key = models.CharField(max_length=40)
    value = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key"], name="shortener_linktally_key_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.value}"


class LinkCacheVersion(models.Model):
    """One row whose number goes up with every change or removal of a link (shortener/fastpath/links.py).

    Each process keeps its own code → link copies for the redirect; reading this row
    (about once a second) is how a process learns that another one changed a link.
    It is in the database because that is what every process shares, Redis or not.
    """

    version = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pk=1), name="shortener_linkcacheversion_single_row"),
        ]

    def __str__(self) -> str:
        return f"links version {self.version}"


class ApiKey(AbstractApiKey):
    """A personal token for the shortener (`Authorization: Bearer shr_…`): shortening, own stats, deleting.

    It acts as its user, never in admin mode: admin rights stay with the admin password.
    """

    key_prefix = "shr_"

    class Meta(AbstractApiKey.Meta):
        verbose_name = "shortener API token"


class LinkImport(models.Model):
    """The progress of one import (POST /import), which the importing page polls.

    In the database rather than the cache: the poll may reach another process than the
    import, and the database is what every process shares, Redis or not.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Chosen by the page before it sends the file, so that it can ask for the progress meanwhile.
    key = models.CharField(max_length=64)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="shortener_linkimport_user_key_uniq"),
        ]

    def __str__(self) -> str:
        return f"import {self.key} of {self.user_id}: {self.done}/{self.total}"


class LinkTag(models.Model):
    """One tag of one link: the owner's own words, to find links again (`?tag=` on /stats)."""

    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="tags", db_index=False)
    name = models.CharField(max_length=32)

    class Meta:
        constraints = [
            # Its index (link first) also reads a link's tags.
            models.UniqueConstraint(fields=["link", "name"], name="shortener_linktag_link_name_uniq"),
        ]
        indexes = [
            # The filter: the links with this tag.
            models.Index(fields=["name", "link"], name="shortener_linktag_name_idx"),
        ]

    def __str__(self) -> str:
        return self.name


class VisitBreakdown(models.Model):
    """Unique visits of one link on one UTC day by one value of one dimension (country "FR", …).

    Kept by the visit batch writer in the transaction that writes the Visit rows, the counter and
    DailyVisits, so that each dimension's counts add up to the day's unique visits; they stay
    after the Visit rows are pruned. The dimension "bot" counts what robots fetched (requests,
    not unique visits), which never enter the counter. Browser, OS and device are one dimension,
    "agents" (services/breakdowns.py). No address is stored: only the country its lookup gave,
    at the time of the request.
    """

    # The key is the writer's upsert target and serves a link's breakdowns over a range of days.
    # No surrogate id and no foreign key constraint: each new visit adds three rows, and a
    # sequence number, a second unique index and a deferred check of the link per row cost
    # PostgreSQL 40 % of their write (bench/visit_batch.py). The Visit rows written in the
    # same transaction keep their constraint, so a visit of a removed link is refused there;
    # a deleted link's rows go with it through the ORM (on_delete) or with their day (pruning).
    pk = models.CompositePrimaryKey("link_id", "day", "dimension", "name")
    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False)
    day = models.DateField()
    dimension = models.CharField(max_length=16)
    name = models.CharField(max_length=100)
    visits = models.PositiveBigIntegerField(default=0)

    class Meta:
        indexes = [
            # Pruning old days.
            models.Index(fields=["day"], name="shortener_breakdown_day_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.visits} visit(s) of {self.link_id} on {self.day}: {self.dimension} {self.name}"


class LinkReport(models.Model):
    """A visitor's report that a link is abuse (shortener/moderation/): the admins' queue reads them per link."""

    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="reports", db_index=False)
    reason = models.CharField(max_length=1000)
    created_at = models.DateTimeField(default=timezone.now)
    # Set when an admin disables or keeps the link: the report leaves the queue.
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="shortener_linkreport_reason_not_empty"),
        ]
        indexes = [
            # The queue: open reports per link (also the foreign key's index).
            models.Index(fields=["link", "created_at"], name="shortener_linkreport_link_idx"),
            models.Index(
                fields=["created_at"], condition=Q(resolved_at__isnull=True), name="shortener_linkreport_open_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"report on {self.link_id}: {self.reason[:40]}"


class ReportedLink(ShortLink):
    """The Django admin's moderation queue: links with open reports (shortener/moderation/admin.py)."""

    class Meta:
        proxy = True
        verbose_name = "reported link"
        verbose_name_plural = "reported links (moderation queue)"


class ShortDomain(models.Model):
    """What one short domain answers besides its links: its root, and codes it does not know.

    Which domains exist is SHORTENER_DOMAINS (the environment); this row only holds what admins
    set for one of them (admin mode's /domains page or the Django admin). `domain` is stored as a
    link's: "" for the default domain.
    """

    domain = models.CharField(max_length=DOMAIN_MAX_LENGTH, blank=True, default="")
    root_redirect = models.URLField(
        max_length=URL_MAX_LENGTH,
        blank=True,
        help_text="Where GET / on this host sends browsers; empty: the main page.",
    )
    not_found_redirect = models.URLField(
        max_length=URL_MAX_LENGTH,
        blank=True,
        help_text="Where browsers asking for an unknown, deleted or expired code on this host go; empty: the 404 page.",
    )

    class Meta:
        verbose_name = "short domain"
        constraints = [
            models.UniqueConstraint(fields=["domain"], name="shortener_shortdomain_domain_uniq"),
        ]

    def __str__(self) -> str:
        return self.domain or "(default domain)"
