"""The HTML page of a paste, /<prefix>/<id>: highlighted, with line numbers, copy and raw buttons.

It is a separate path from the API's /paste/@{id}, which stays JSON whatever Accept says, so
API clients that send `Accept: text/html` or `*/*` keep their contract. The paste id alone,
as on the modelled site (idefasoft.fr/pastes/<id>), is the link people share.

Reading here follows the API's rules (views counted for everyone but the owner, expiry,
private pastes only for their owner signed in to the site) with one step more for
burn-after-read pastes: a GET shows a "Reveal" button, and only its POST (with CSRF)
shows the content and burns the paste. So nothing is burned or counted by opening the
link, by a browser's prefetch, or by a crawler or link-preview agent, which never burn
or count a paste at all (common.bots).
"""

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods

from common.bots import is_bot_request
from pastes import services
from pastes.errors import PasteNotFound
from pastes.highlighting import highlighted, lexer_for
from pastes.models import Paste

NOT_FOUND = "This paste does not exist: it may have expired, been burned after reading, or never existed."


def _reader(request: HttpRequest) -> AbstractBaseUser | None:
    return request.user if request.user.is_authenticated else None


def _paste_page(request: HttpRequest, paste: Paste, *, burned: bool = False) -> HttpResponse:
    lexer = lexer_for(paste.content, paste.syntax)
    context = {
        "paste": paste,
        "code": highlighted(paste.content, lexer),
        "language": lexer.name,
        "burned": burned,
        "raw_url": reverse("pastes:paste-raw", kwargs={"paste_id": paste.id}),
    }
    return render(request, "pastes/paste.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
def paste_page(request: HttpRequest, paste_id: str) -> HttpResponse:
    reader = _reader(request)
    robot = is_bot_request(request)
    try:
        paste = services.paste_get_visible(paste_id=paste_id, user=reader)
        if paste.burn_after_read and not paste.is_owned_by(reader):
            if request.method == "POST" and not robot:
                paste = services.paste_read(paste_id=paste_id, reader=reader)
                response = _paste_page(request, paste, burned=True)
            else:
                response = render(request, "pastes/reveal.html", {"paste": paste})
        elif request.method == "POST":
            return redirect("pastes:paste-page", paste_id=paste_id)
        else:
            counts = request.method == "GET" and not robot and not paste.is_owned_by(reader)
            if counts:
                paste = services.paste_read(paste_id=paste_id, reader=reader)
            response = _paste_page(request, paste)
    except PasteNotFound:
        response = render(request, "error.html", {"status": 404, "message": NOT_FOUND}, status=404)
    # Per reader (views, burning, private pastes): never kept by a cache on the way.
    add_never_cache_headers(response)
    return response
