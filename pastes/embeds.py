"""Embeds: a public or unlisted paste shown on another site, as GitHub gists and Opengist do.

- `<script src="…/pastes/{id}.js" crossorigin="anonymous"></script>` writes one sandboxed,
  credentialless iframe after itself, and runs nothing else in the host page.
- `…/pastes/{id}/embed` is that iframe: the paste highlighted, with no script at all (its CSP
  says script-src 'none'), the one page of the site that other sites may frame.

Neither reads the session or sets a cookie: an embed is the same for everyone, so a private
paste is never embedded even in its owner's browser. Private pastes answer 404 (as to any
stranger); password, encrypted and burn-after-read pastes answer 403 saying why. An embed
counts no view: it is shown on every load of the host page, and robots load many.
"""

import json

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_http_methods

from pastes.errors import PasteNotFound, PastesError
from pastes.files import paste_files
from pastes.highlighting import highlighted, language_name, lexer_for
from pastes.models import Paste
from pastes.services import paste_get_visible

EMBED_CSP = {
    "default-src": [CSP.NONE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "script-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.NONE],
    "frame-ancestors": ["*"],  # only here: every other page keeps frame-ancestors 'none' and X-Frame-Options DENY
}
# The iframe's height follows the text up to this many lines, then the code scrolls inside it.
EMBED_MAX_LINES = 25
EMBED_LINE_PX = 20
EMBED_CHROME_PX = 64
EMBED_FILENAME_PX = 26  # each file's name above it, when the paste has several


class NotEmbeddable(PastesError):
    status = 403


def embed_files(paste: Paste) -> list[tuple[str, str, str]]:
    """(filename, content, syntax) of each file an embed shows (all of a many-file paste's, in order)."""
    return [(file["filename"], file["content"], file["syntax"]) for file in paste_files(paste)]


def is_embeddable(paste: Paste) -> bool:
    shared = paste.exposure != Paste.Exposure.PRIVATE
    return shared and not (paste.password_protected or paste.encrypted or paste.burn_after_read)


def embeddable_paste(paste_id: str) -> Paste:
    """The paste as any stranger sees it (never the session's user), if it may be embedded."""
    paste = paste_get_visible(paste_id=paste_id, user=None)
    if paste.password_protected:
        raise NotEmbeddable(gettext_noop("This paste is protected by a password, so it cannot be embedded."))
    if paste.encrypted:
        raise NotEmbeddable(
            gettext_noop("This paste is end-to-end encrypted, so it cannot be embedded: the server cannot read it.")
        )
    if paste.burn_after_read:
        raise NotEmbeddable(
            gettext_noop("This paste burns after reading, so it cannot be embedded: its first reader deletes it.")
        )
    return paste


NOT_FOUND = gettext_noop("This paste does not exist or is not shared, so it cannot be embedded.")


def _uncached(response: HttpResponse) -> HttpResponse:
    # Exposure, password and expiry may change at any time: a cache on the way must ask again.
    patch_cache_control(response, no_cache=True, max_age=0)
    # Any other site may load these; nobody's cookies are wanted on them.
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_http_methods(["GET", "HEAD"])
@xframe_options_exempt
@csp_override(EMBED_CSP)
def embed_frame(request: HttpRequest, paste_id: str) -> HttpResponse:
    try:
        paste = embeddable_paste(paste_id)
    except PasteNotFound:
        context, status = {"message": _(NOT_FOUND)}, 404
        return _uncached(render(request, "pastes/embed_error.html", context, status=status))
    except NotEmbeddable as error:
        context, status = {"message": _(error.message)}, 403
        return _uncached(render(request, "pastes/embed_error.html", context, status=status))
    files = []
    for filename, content, syntax in embed_files(paste):
        lexer = lexer_for(content, syntax)
        files.append({"filename": filename, "code": highlighted(content, lexer), "language": language_name(lexer)})
    page_url = request.build_absolute_uri(reverse("pastes:paste-page", kwargs={"paste_id": paste.id}))
    context = {"paste": paste, "files": files, "page_url": page_url}
    return _uncached(render(request, "pastes/embed.html", context))


# Written by the script into the host page: no markup from the paste, only our iframe's address.
SCRIPT = """(function () {
  var script = document.currentScript;
  var frame = document.createElement("iframe");
  frame.src = %(src)s;
  frame.title = %(title)s;
  frame.setAttribute("sandbox", "allow-popups allow-popups-to-escape-sandbox");
  frame.setAttribute("credentialless", "");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("loading", "lazy");
  frame.style.cssText = "display:block;width:100%%;height:%(height)dpx;border:1px solid #d0d7de;border-radius:6px";
  script.parentNode.insertBefore(frame, script.nextSibling);
})();
"""
ERROR_SCRIPT = """/* %(comment)s */
(function () {
  var script = document.currentScript, note = document.createElement("p");
  note.textContent = %(message)s;
  script.parentNode.insertBefore(note, script.nextSibling);
})();
"""


def _script_response(body: str, status: int = 200) -> HttpResponse:
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8", status=status)
    # So that <script crossorigin="anonymous"> (which sends no cookies) may load it.
    response["Access-Control-Allow-Origin"] = "*"
    return _uncached(response)


@require_http_methods(["GET", "HEAD"])
def embed_script(request: HttpRequest, paste_id: str) -> HttpResponse:
    try:
        paste = embeddable_paste(paste_id)
    except PastesError as error:
        # In the host page's reader's language, like the iframe's error (the same wording).
        message = _(NOT_FOUND if isinstance(error, PasteNotFound) else error.message)
        status = 404 if isinstance(error, PasteNotFound) else 403
        return _script_response(
            ERROR_SCRIPT % {"comment": message.replace("*/", ""), "message": json.dumps(message)}, status
        )
    files = embed_files(paste)
    lines = sum(max(1, len(content.splitlines())) for _filename, content, _syntax in files)
    headings = len(files) if len(files) > 1 else 0
    height = min(lines, EMBED_MAX_LINES) * EMBED_LINE_PX + headings * EMBED_FILENAME_PX + EMBED_CHROME_PX
    src = request.build_absolute_uri(reverse("pastes:paste-embed", kwargs={"paste_id": paste.id}))
    body = SCRIPT % {"src": json.dumps(src), "title": json.dumps(paste.name), "height": height}
    return _script_response(body)
