"""Saving one foreign line: its code kept, a code taken here reported and never overwritten."""

from shortener import messages
from shortener.domains import DEFAULT
from shortener.errors import Failure
from shortener.models import DEDUPLICATED_LINKS, ShortLink
from shortener.services.editing import clean_tags, set_tags
from shortener.services.links import clean_custom, clean_url, link_create


def import_one(user_id: int, entry) -> tuple[str, str, str]:
    """Import one foreign line for the user: (status, code, message); status created, existing or refused.

    Its code is kept. A code already taken here is refused and reported; the link behind it is
    never changed (a link of the same user to the same URL counts as already there).
    """
    try:
        url = clean_url(entry.url)
        code = clean_custom(entry.custom, url=url) if entry.custom else ""
        if code:
            existing = ShortLink.objects.filter(domain=DEFAULT, code=code).first()  # imports go on the default domain
            if existing is not None:
                if existing.owner_id == user_id and existing.url == url and not existing.is_deleted:
                    return "existing", code, ""
                return "refused", "", messages.IMPORT_CODE_CONFLICT.format(code=code)
        else:
            existing = ShortLink.objects.filter(
                owner_id=user_id, url_digest=ShortLink.digest(url), **DEDUPLICATED_LINKS
            ).first()
            if existing is not None:
                return "existing", existing.code, ""
        link = link_create(
            owner_id=user_id,
            url=url,
            custom=code,
            created_at=entry.created_at,
            imported_visits=entry.imported_visits,
        )
        if entry.tags:
            set_tags(link, clean_tags(entry.tags))
    except Failure as failure:
        if failure.status == 409:  # taken between the check and the insert
            return "refused", "", messages.IMPORT_CODE_CONFLICT.format(code=entry.custom)
        return "refused", "", failure.msg
    return "created", link.code, ""
