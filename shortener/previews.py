"""Link previews (issue 46): the card a chat or social app shows for a short link.

A link's title, description and image are fetched once from its target after it is created, on
the task queue, through A's guarded fetcher (reports.analysis.fetch: every address vetted, never
a private one unless REPORTS_ALLOW_PRIVATE_NETWORKS, a time budget, a size cap, HTML only), and
the owner can change them on the edit page or through `/edit/<code>`. A known preview robot
(common.bots, the list that already keeps robots out of the counter) that follows a link with a
preview gets a small page with Open Graph and Twitter card tags and a refresh to the target,
and is counted as a robot, not a visit; people are redirected as before.
"""

import logging
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.tasks import task

from shortener import messages
from shortener.errors import Failure
from shortener.fastpath import CachedLink
from shortener.models import PREVIEW_DESCRIPTION_MAX, PREVIEW_TITLE_MAX, URL_MAX_LENGTH, ShortLink

logger = logging.getLogger(__name__)

FIELDS = ("preview_title", "preview_description", "preview_image")
LIMITS = {"preview_title": PREVIEW_TITLE_MAX, "preview_description": PREVIEW_DESCRIPTION_MAX}
# Enough for any page's <head>; the rest of the page is not read.
FETCH_MAX_BYTES = 512 * 1024
FETCH_BUDGET_SECONDS = 5.0


def clean_preview_fields(data: dict[str, str]) -> dict[str, str]:
    """The preview fields present in `data`, checked (an empty one clears it); Failure(400) if wrong."""
    cleaned = {}
    for field in FIELDS:
        if field not in data:
            continue
        value = " ".join(data[field].split())
        limit = LIMITS.get(field, URL_MAX_LENGTH)
        if len(value) > limit:
            raise Failure(messages.PREVIEW_FIELD_TOO_LONG.format(field=field, limit=limit))
        if field == "preview_image" and value and urlsplit(value).scheme not in ("http", "https"):
            raise Failure(messages.PREVIEW_IMAGE_INVALID)
        cleaned[field] = value
    return cleaned


class _HeadReader(HTMLParser):
    """Collects <title> and the description, Open Graph and Twitter card <meta> tags of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag == "meta":
            values = {name: value or "" for name, value in attrs}
            name = (values.get("property") or values.get("name") or "").strip().lower()
            if name and name not in self.meta and values.get("content"):
                self.meta[name] = values["content"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title and len(self.title) < PREVIEW_TITLE_MAX:
            self.title += data


def read_preview(html: str, page_url: str) -> dict[str, str]:
    """The preview a page describes for itself (Open Graph first, then Twitter, then plain HTML)."""
    reader = _HeadReader()
    reader.feed(html)
    meta = reader.meta

    def first(*names: str) -> str:
        return next((" ".join(meta[name].split()) for name in names if meta.get(name, "").strip()), "")

    image = first("og:image", "og:image:url", "twitter:image", "twitter:image:src")
    image = urljoin(page_url, image) if image else ""
    if urlsplit(image).scheme not in ("http", "https") or len(image) > URL_MAX_LENGTH:
        image = ""
    return {
        "preview_title": (first("og:title", "twitter:title") or " ".join(reader.title.split()))[:PREVIEW_TITLE_MAX],
        "preview_description": first("og:description", "twitter:description", "description")[:PREVIEW_DESCRIPTION_MAX],
        "preview_image": image,
    }


def fetch_preview(url: str) -> dict[str, str]:
    """Fetch the target's page through the guarded fetcher and read its preview; {} if it cannot be read."""
    from reports.analysis.errors import AnalysisError
    from reports.analysis.fetch import Fetcher

    fetcher = Fetcher(budget=FETCH_BUDGET_SECONDS)
    try:
        page = fetcher.fetch(url, max_bytes=FETCH_MAX_BYTES, truncate=True, html_only=True)
    except AnalysisError as error:
        logger.info("No preview for %s: %s", url, error)
        return {}
    finally:
        fetcher.close()
    if not page.ok:
        return {}
    return read_preview(page.body.decode("utf-8", errors="replace"), page.url)


@task()
def fetch_link_preview(link_id: int) -> bool:
    """Fill the link's preview from its target, unless its owner gave one meanwhile; say whether it did."""
    link = ShortLink.objects.filter(pk=link_id, deleted_at__isnull=True).first()
    if link is None or any(getattr(link, field) for field in FIELDS):
        return False
    preview = fetch_preview(link.url)
    if not any(preview.values()):
        return False
    with transaction.atomic():
        link = ShortLink.objects.select_for_update().filter(pk=link_id).first()
        if link is None or any(getattr(link, field) for field in FIELDS):
            return False  # edited while the page was fetched: the owner's words stay
        for field, value in preview.items():
            setattr(link, field, value)
        link.save(update_fields=list(FIELDS))  # its signal drops the cached copies everywhere
    return True


def enqueue_preview_fetch(link: ShortLink) -> None:
    """Once the new link is committed, queue the fetch of its preview (SHORTENER_LINK_PREVIEWS)."""
    if not settings.SHORTENER_LINK_PREVIEWS or any(getattr(link, field) for field in FIELDS):
        return

    def enqueue() -> None:
        try:
            fetch_link_preview.enqueue(link.pk)
        except Exception:  # a queue that cannot be reached costs the preview, never the link
            logger.exception("Could not queue the preview of short link %s.", link.pk)

    transaction.on_commit(enqueue)


def preview_page(request: HttpRequest, link: CachedLink, url: str, short: str) -> HttpResponse:
    """What a preview robot gets: the card's tags, and a refresh to the target for anything that follows it."""
    title, description, image = link.preview or ("", "", "")
    context = {"title": title, "description": description, "image": image, "url": url, "short": short}
    return render(request, "shortener/preview.html", context)
