"""Seed a fresh database for the HTTP benchmarks and print what the scenarios need as JSON.

Run inside Django (`manage.py shell -c "from bench.seed import seed; seed()"`): 10,000 short
links (some with an expiry or a visit limit) and 1,000 expired or used-up ones, 10,000 pastes
and 1,000 reports over 50 projects, for two users.
"""

import json
import random
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from pastes.models import ApiKey as PastesApiKey
from pastes.models import Paste, PasteProfile, generate_paste_id
from reports.models import ApiKey as ReportsApiKey
from reports.models import Project, Report
from shortener.models import ShortLink
from shortener.rules import clean_rules

LINKS = 10_000
SPENT_LINKS = 1_000
RULED_LINKS = 2_000
# Three redirect rules none of the bench's visitors match (bench-visitor-N, no Accept-Language, loopback).
THREE_RULES = [
    {"when": {"device": "ios"}, "url": "https://apps.example/ios"},
    {"when": {"language": "fr"}, "url": "https://example.fr/"},
    {"when": {"country": "FR"}, "url": "https://example.fr/pays"},
]
VISIT_LIMIT = 1_000_000
PASTES = 10_000
REPORTS = 1_000
PROJECTS = 50
BATCH = 2_000

CATEGORIES = {
    "seo": 18,
    "performance": 10,
    "security": 7,
    "miscellaneous": 14,
}


def _results(rng: random.Random) -> dict:
    """A report's results with the engine's shape: about 50 checks with their evidence."""
    return {
        category: {
            f"check_{index}": {
                "passed": rng.random() < 0.7,
                "importance": rng.choice(["high", "medium", "low"]),
                "value": rng.randint(0, 500),
                "errors": {} if rng.random() < 0.7 else {"missing": [f"/img/{n}.png" for n in range(3)]},
            }
            for index in range(count)
        }
        for category, count in CATEGORIES.items()
    }


def seed() -> None:
    rng = random.Random(20261122)
    users = [get_user_model().objects.create_user(username=name) for name in ("bench-a", "bench-b")]
    _, reports_key = ReportsApiKey.issue(user=users[0], name="bench")
    _, pastes_key = PastesApiKey.issue(user=users[0], name="bench")
    # The create scenario writes thousands of pastes as one user; the quota is not what it measures.
    PasteProfile.objects.create(user=users[0], max_paste_chars=2_000_000_000)
    now = timezone.now()

    # A third of the links expire in a month and a fifth have a visit limit the run cannot reach
    # (visited by a scenario of their own); the counters still equal the unique visits.
    links = [
        ShortLink(
            code=ShortLink.generate_code(),
            url=f"https://example.com/articles/{n}?ref=bench",
            owner=users[n % 2],
            created_at=now - timedelta(minutes=n),
            expires_at=now + timedelta(days=30) if n % 3 == 0 else None,
            max_visits=VISIT_LIMIT if n % 5 == 0 else None,
        )
        for n in range(LINKS)
    ]
    # And links whose lifetime is over, kept for their statistics; the scenarios do not visit them.
    spent = [
        ShortLink(
            code=ShortLink.generate_code(),
            url=f"https://example.com/old/{n}",
            owner=users[n % 2],
            created_at=now - timedelta(days=60),
            expires_at=now - timedelta(days=1) if n % 2 else None,
            max_visits=None if n % 2 else 10,
            counter=0 if n % 2 else 10,
        )
        for n in range(SPENT_LINKS)
    ]
    # Links with three redirect rules (issue 46), which the bench visitors match none of: each visit
    # evaluates all three (device, language, country) before the link's own URL.
    ruled = [
        ShortLink(
            code=ShortLink.generate_code(),
            url=f"https://example.com/ruled/{n}",
            owner=users[n % 2],
            created_at=now - timedelta(minutes=n),
            rules=clean_rules(THREE_RULES),
        )
        for n in range(RULED_LINKS)
    ]
    seeded_counters = sum(link.counter for link in spent)
    for link in links + spent + ruled:
        link.url_digest = ShortLink.digest(link.url)
    ShortLink.objects.bulk_create(links + spent + ruled, batch_size=BATCH)

    content = "def handler(request):\n    return render(request, 'page.html', {'items': items})\n" * 12
    pastes = [
        Paste(
            id=generate_paste_id(),
            owner=users[n % 2],
            name=f"Snippet {n}",
            content=content,
            exposure=Paste.Exposure.PUBLIC if n % 4 else Paste.Exposure.UNLISTED,
            created_at=now - timedelta(minutes=n),
        )
        for n in range(PASTES)
    ]
    Paste.objects.bulk_create(pastes, batch_size=BATCH)

    projects = Project.objects.bulk_create(
        [Project(owner=users[n % 2], name=f"site{n}.example") for n in range(PROJECTS)]
    )
    reports = []
    for n in range(REPORTS):
        project = projects[n % PROJECTS]
        score = rng.randint(20, 100)
        reports.append(
            Report(
                owner=project.owner,
                project=project,
                url=f"https://{project.name}/page/{n}",
                score=score,
                result="good" if score >= 80 else "decent" if score >= 50 else "bad",
                results=_results(rng),
                generated_at=now - timedelta(hours=n),
                status=Report.Status.DONE,
            )
        )
    reports = Report.objects.bulk_create(reports, batch_size=500)
    own_reports = [r for r in reports if r.owner_id == users[0].pk]
    own_projects = [p.name for p in projects if p.owner_id == users[0].pk]
    # What autovacuum does to a live database soon after such a load: planner statistics, and
    # the visibility map that lets index-only scans skip the table.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")

    shortener = f"/{settings.SHORTENER_PREFIX}/" if settings.SHORTENER_PREFIX else "/"
    pastes_root = f"/{settings.PASTES_PREFIX}/" if settings.PASTES_PREFIX else "/"
    readable = [p.id for p in pastes]
    # The redirect scenarios visit links with and without max_visits apart: a limited link's
    # visit is a database write during the request (issue 20), the others' are buffered.
    codes = [link.code for link in links if link.max_visits is None]
    limited_codes = [link.code for link in links if link.max_visits is not None]
    print(
        json.dumps(
            {
                "reports_key": reports_key,
                "pastes_key": pastes_key,
                "codes": codes,
                "limited_codes": limited_codes,
                "ruled_codes": [link.code for link in ruled],
                "shortener_path": shortener,
                # Less the counters the used-up links were seeded with: the check compares visits made.
                "counter_sum_sql": f"SELECT COALESCE(SUM(counter), 0) - {seeded_counters} FROM shortener_shortlink",
                "resolve_paths": [f"{shortener}{code}?_format=json" for code in codes + limited_codes],
                "stats_paths": [f"{shortener}stats/{code}?_format=json" for code in codes + limited_codes],
                "paste_paths": [f"{pastes_root}paste/@{paste_id}" for paste_id in readable],
                "raw_paths": [f"{pastes_root}paste/@{paste_id}/raw" for paste_id in readable],
                "create_paths": [f"{pastes_root}create"],
                "report_list_paths": [
                    f"/api/v1/reports?per_page=25&sort_by={sort_by}&sort={sort}&result={result}&project={project}"
                    for sort_by in ("generated_at", "url", "id")
                    for sort in ("asc", "desc")
                    for result in ("good", "decent")
                    for project in own_projects[:5]
                ]
                + [f"/api/v1/reports?per_page=25&page={page}" for page in range(1, 21)],
                "report_paths": [f"/api/v1/reports/{report.pk}" for report in own_reports],
            }
        )
    )
