"""Pages of several files and revisions (issue 47): one file's download, the zip, and the history.

They follow the paste page's rules through pages._readable: a paste the reader may see, not
someone else's burn-after-read paste (read once, on its page), and unlocked by its password.
"""

from django.contrib import messages as flash
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from pastes import revisions
from pastes.errors import PastesError
from pastes.files import paste_files, zip_chunks
from pastes.page_messages import page_message
from pastes.pages import NOT_FOUND, _readable, _reader, counted_download_read

CURRENT = "current"


def _not_found(request: HttpRequest, message: str = NOT_FOUND) -> HttpResponse:
    return render(request, "error.html", {"status": 404, "message": message}, status=404)


@require_http_methods(["GET", "HEAD"])
def download_file(request: HttpRequest, paste_id: str, number: int) -> HttpResponse:
    """File `number` (from 1) as an attachment under its own filename."""
    paste = counted_download_read(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    files = paste_files(paste)
    if not 1 <= number <= len(files):
        return _not_found(request, _("This paste has no file number %(number)s.") % {"number": number})
    file = files[number - 1]
    name = f"file-{number}.e2e.json" if paste.encrypted else file["filename"]
    response = HttpResponse(file["content"], content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, name)
    add_never_cache_headers(response)
    return response


@require_http_methods(["GET", "HEAD"])
def download_zip(request: HttpRequest, paste_id: str) -> HttpResponse:
    """Every file in one zip, made while it is sent (pastes.files.zip_chunks)."""
    paste = counted_download_read(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    files = paste_files(paste)
    response = StreamingHttpResponse(zip_chunks(files, encrypted=paste.encrypted), content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(True, (slugify(paste.name) or paste.id) + ".zip")
    add_never_cache_headers(response)
    return response


def _version(paste, rows: list[dict], choice: str) -> tuple[str, list[dict]] | None:
    """The files of a version: CURRENT (the paste) or a revision's number; None if unknown or removed."""
    if choice == CURRENT:
        return CURRENT, paste_files(paste)
    if not choice.isdigit() or not any(row["number"] == int(choice) and not row["removed"] for row in rows):
        return None
    revision = revisions.revision_get(paste=paste, number=int(choice))
    return choice, revision.files


@require_http_methods(["GET", "HEAD", "POST"])
def history(request: HttpRequest, paste_id: str) -> HttpResponse:
    """The revisions, and a unified diff between any two versions (`?from=N&to=M`, `current` for the paste).

    The owner's POST (`remove=N`, with CSRF) removes a revision's content.
    """
    paste = _readable(request, paste_id)
    if isinstance(paste, HttpResponse):
        add_never_cache_headers(paste)
        return paste
    if request.method == "POST":
        if not paste.is_owned_by(_reader(request)):
            message = _("Only the owner of this paste may remove a revision.")
            return render(request, "error.html", {"status": 403, "message": message}, status=403)
        number = request.POST.get("remove", "")
        try:
            if not number.isdigit():
                raise revisions.RevisionNotFound()
            revisions.revision_remove(paste=paste, number=int(number))
        except PastesError as error:
            return render(request, "error.html", {"status": error.status, "message": page_message(error)}, status=404)
        flash.success(request, _("Revision %(number)s removed.") % {"number": number})
        return redirect("pastes:paste-history", paste_id=paste.id)
    rows = revisions.listing(paste)
    kept = [str(row["number"]) for row in rows if not row["removed"]]
    default_from = kept[-1] if kept else CURRENT
    before = _version(paste, rows, request.GET.get("from", default_from))
    after = _version(paste, rows, request.GET.get("to", CURRENT))
    diff, status, error = "", 200, ""
    if before is None or after is None:
        error, status = _("There is no such revision to compare (it may have been removed)."), 400
    elif not paste.encrypted:
        lines = revisions.unified_diff(before[1], after[1])
        diff = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    context = {
        "paste": paste,
        "rows": rows,
        "choices": [*kept, CURRENT],
        "from_choice": before[0] if before else "",
        "to_choice": after[0] if after else "",
        "diff": diff,
        "error": error,
        "is_owner": paste.is_owned_by(_reader(request)),
    }
    response = render(request, "pastes/history.html", context, status=status)
    add_never_cache_headers(response)
    return response
