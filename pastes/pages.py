"""The HTML page of a paste, /<prefix>/<id>: highlighted, with line numbers, copy and raw buttons.

It is a separate path from the API's /paste/@{id}, which stays JSON whatever Accept says, so
API clients that send `Accept: text/html` or `*/*` keep their contract. The paste id alone,
as on the modelled site (idefasoft.fr/pastes/<id>), is the link people share.

Reading here follows the API's rules (views counted for everyone but the owner, expiry,
private pastes only for their owner signed in to the site) with one step more for
burn-after-read pastes: a GET shows a "Reveal" button, and only its POST (with CSRF)
shows the content and burns the paste. So nothing is burned or counted by opening the
link, by a browser's prefetch, or by a crawler or link-preview agent, which never burn
or count a paste at all (common.bots). The Reveal button works for every other reader,
headless browsers included (common.bots.is_preview_bot): a preview agent fetches links, it
does not post forms, and one that does is told why it is shown nothing.
"""

from django.conf import settings
from django.contrib import messages as flash
from django.contrib.auth.models import AbstractBaseUser
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.formats import number_format
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from rest_framework.exceptions import ValidationError

from common.bots import is_bot_request, is_preview_bot_request
from common.sign_in import signed_in
from pastes import services, views
from pastes.comments import threads
from pastes.embeds import is_embeddable
from pastes.errors import PasteNotFound, PastesError, TooManyPasswordAttempts, TooManyPasswordChecks
from pastes.file_forms import ADD_FILE, more_files_initial, slots_posted
from pastes.files import files_for_page, paste_files
from pastes.forms import PasteForm
from pastes.highlighting import guess_syntax, highlighted, language_name, lexer_for
from pastes.models import Paste
from pastes.page_messages import detail_message, page_message
from pastes.serializers import PasteCreateSerializer, PasteEditSerializer
from pastes.throttling import PastePasswordThrottle

NOT_FOUND = gettext_lazy("This paste does not exist: it may have expired, been burned after reading, or never existed.")


def _reader(request: HttpRequest) -> AbstractBaseUser | None:
    return request.user if request.user.is_authenticated else None


def _paste_page(request: HttpRequest, paste: Paste, *, burned: bool = False) -> HttpResponse:
    context = {
        "paste": paste,
        "burned": burned,
        "raw_url": reverse("pastes:paste-raw", kwargs={"paste_id": paste.id}),
        # The discussion (pastes.comments), shown to whoever may read the paste.
        "comments": threads(paste.pk) if paste.discussion and not burned else None,
        "embeddable": is_embeddable(paste),
        "files": files_for_page(paste),  # a many-file paste's files, each with its links (issue 47)
    }
    if paste.encrypted:
        # The server cannot read it: the page decrypts it (pastes/static/pastes/e2e.js) and shows it plain.
        context["download_name"] = (slugify(paste.name) or paste.id) + ".txt"
    else:
        lexer = lexer_for(paste.content, paste.syntax)
        context |= {"code": highlighted(paste.content, lexer), "language": language_name(lexer)}
    return render(request, "pastes/paste.html", context)


# --- Password-protected pastes: the unlocked ones are remembered in the session ---------------

UNLOCKED_SESSION_KEY = "pastes_unlocked"
UNLOCKED_MAX = 100  # pastes remembered per session, the latest kept


def _unlock_token(paste: Paste) -> str:
    # Bound to the password's hash, so that a new password locks the paste again for everyone.
    return salted_hmac("pastes.pages.unlock", paste.password, algorithm="sha256").hexdigest()


def _is_unlocked(request: HttpRequest, paste: Paste) -> bool:
    if not paste.password_protected or paste.is_owned_by(_reader(request)):
        return True
    token = request.session.get(UNLOCKED_SESSION_KEY, {}).get(paste.id)
    return token is not None and constant_time_compare(token, _unlock_token(paste))


def _remember_unlocked(request: HttpRequest, paste: Paste) -> None:
    unlocked = request.session.get(UNLOCKED_SESSION_KEY, {})
    unlocked.pop(paste.id, None)
    unlocked[paste.id] = _unlock_token(paste)
    request.session[UNLOCKED_SESSION_KEY] = dict(list(unlocked.items())[-UNLOCKED_MAX:])


def _password_page(request: HttpRequest, paste: Paste, *, error: str = "", status: int = 200) -> HttpResponse:
    return render(request, "pastes/password.html", {"paste": paste, "error": error}, status=status)


def _unlock(request: HttpRequest, paste: Paste) -> HttpResponse:
    """The password form's POST: counted per paste and address, right → remembered (and revealed if it burns).

    Remembered in the session, the paste is shown again without checking the password (hashing) again.
    """
    throttle = PastePasswordThrottle(paste.id)
    try:
        throttle.attempt(request)
    except (TooManyPasswordAttempts, TooManyPasswordChecks) as error:
        response = _password_page(request, paste, error=page_message(error), status=429)
        response["Retry-After"] = str(error.retry_after)
        return response
    if not paste.check_password(request.POST.get("password", "")):
        return _password_page(request, paste, error=_("Wrong password."), status=403)
    throttle.release(request)
    _remember_unlocked(request, paste)
    if paste.burn_after_read:
        if is_preview_bot_request(request):
            return render(request, "pastes/reveal.html", {"paste": paste, "refused": True}, status=403)
        # The form said so: a burn-after-read paste is shown (and burned) by the right password.
        paste = services.paste_read(paste_id=paste.id, reader=_reader(request), unlocked=True)
        return _paste_page(request, paste, burned=True)
    return redirect("pastes:paste-page", paste_id=paste.id)


@require_http_methods(["GET", "HEAD", "POST"])
def paste_page(request: HttpRequest, paste_id: str) -> HttpResponse:
    reader = _reader(request)
    robot = is_bot_request(request)
    try:
        paste = services.paste_get_visible(paste_id=paste_id, user=reader)
        if not _is_unlocked(request, paste):
            if request.method == "POST" and "password" in request.POST:
                response = _unlock(request, paste)
            else:
                response = _password_page(request, paste)
        elif paste.burn_after_read and not paste.is_owned_by(reader):
            if request.method == "POST" and not is_preview_bot_request(request):
                paste = services.paste_read(paste_id=paste_id, reader=reader, unlocked=True)
                response = _paste_page(request, paste, burned=True)
            else:
                # A known link-preview agent that posts the form is told why nothing is shown.
                refused = request.method == "POST"
                status = 403 if refused else 200
                response = render(request, "pastes/reveal.html", {"paste": paste, "refused": refused}, status=status)
        elif request.method == "POST":
            return redirect("pastes:paste-page", paste_id=paste_id)
        else:
            counts = request.method == "GET" and not robot and not paste.is_owned_by(reader)
            if counts:
                paste = services.paste_read(paste_id=paste_id, reader=reader, unlocked=True)
            response = _paste_page(request, paste)
    except PasteNotFound:
        response = render(request, "error.html", {"status": 404, "message": NOT_FOUND}, status=404)
    # Per reader (views, burning, private pastes): never kept by a cache on the way.
    add_never_cache_headers(response)
    return response


# --- The signed-in reader's pages: list, new, edit, delete, fork, download --------------------

PER_PAGE = 20


def wants_html(request: HttpRequest) -> bool:
    """A browser's Accept (text/html before anything else); API clients (`*/*`, JSON, none) get JSON."""
    return request.get_preferred_type(["application/json", "text/html"]) == "text/html"


@vary_on_headers("Accept")
def index(request: HttpRequest) -> HttpResponse:
    """`/`: the reader's pastes, paged, for a browser; the API's index (JSON) for everyone else."""
    if request.method not in ("GET", "HEAD") or not wants_html(request):
        # The API's answer, in English whatever the reader asks for (common/locale.py): rendered here,
        # inside the override, since DRF renders its body after the view returns.
        with translation.override(settings.LANGUAGE_CODE):
            response = views.PasteIndexView.as_view()(request)
            response.render()
        response["Content-Language"] = settings.LANGUAGE_CODE
        return response
    page = None
    if request.user.is_authenticated:
        pastes = Paste.objects.filter(owner=request.user).unexpired().order_by("-created_at", "-pk").defer("content")
        page = Paginator(pastes, PER_PAGE).get_page(request.GET.get("page"))
    response = render(request, "pastes/index.html", {"page": page})
    add_never_cache_headers(response)
    return response


def _api_errors_to_form(form: PasteForm, error: ValidationError | PastesError) -> None:
    """Show what the API would have answered on the form: by field where it names one."""
    if isinstance(error, PastesError):
        form.add_error(None, page_message(error))
        return
    detail = error.detail if isinstance(error.detail, dict) else {None: error.detail}
    for field, messages in detail.items():
        name = field if field in form.fields else None
        for message in messages if isinstance(messages, list) else [messages]:
            form.add_error(name, detail_message(message))


def _form_page(request: HttpRequest, form: PasteForm, *, title: str, paste: Paste | None = None, status: int = 200):
    context = {"form": form, "title": title, "paste": paste, "max_bytes": settings.PASTES_MAX_BODY_BYTES}
    response = render(request, "pastes/form.html", context, status=status)
    add_never_cache_headers(response)
    return response


def _too_large(form: PasteForm) -> bool:
    if len(form.cleaned_data.get("content", "").encode("utf-8", "surrogatepass")) > settings.PASTES_MAX_BODY_BYTES:
        form.add_error(
            "content",
            _("The content is too large: the limit is %(limit)s bytes.")
            % {"limit": number_format(settings.PASTES_MAX_BODY_BYTES)},
        )
        return True
    return False


@signed_in
@require_http_methods(["GET", "HEAD", "POST"])
def new(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _form_page(request, PasteForm(), title=pgettext("pastes", "New paste"))
    form = PasteForm(request.POST, more_files=slots_posted(request.POST))
    if ADD_FILE in request.POST:  # "Add another file": the same form, one file slot more
        return _form_page(request, form, title=pgettext("pastes", "New paste"))
    if form.is_valid() and not _too_large(form):
        data = form.api_data()
        if not data.get("syntax") and data.get("content") and not data.get("encrypted"):
            data["syntax"] = guess_syntax(data["content"])  # shown on the form when it is edited
        serializer = PasteCreateSerializer(data=data)
        try:
            serializer.is_valid(raise_exception=True)
            paste = services.paste_create(owner=request.user, **serializer.validated_data)
        except (ValidationError, PastesError) as error:
            _api_errors_to_form(form, error)
        else:
            flash.success(request, _("Paste created."))
            return redirect("pastes:paste-page", paste_id=paste.id)
    return _form_page(request, form, title=pgettext("pastes", "New paste"), status=400)


def _own_paste(request: HttpRequest, paste_id: str) -> Paste | HttpResponse:
    try:
        return services.paste_get_for_owner(paste_id=paste_id, user=request.user)
    except PastesError as error:
        message = NOT_FOUND if isinstance(error, PasteNotFound) else page_message(error)
        return render(request, "error.html", {"status": error.status, "message": message}, status=error.status)


@signed_in
@require_http_methods(["GET", "HEAD", "POST"])
def edit(request: HttpRequest, paste_id: str) -> HttpResponse:
    paste = _own_paste(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    if request.method != "POST":
        initial = {
            field: getattr(paste, field)
            for field in (
                "name",
                "content",
                "syntax",
                "exposure",
                "burn_after_read",
                "encrypted",
                "discussion",
                "filename",
            )
        }
        initial |= more_files_initial(paste_files(paste))
        more = paste.file_count - 1
        form = PasteForm(initial=initial, editing=True, has_password=paste.password_protected, more_files=more)
        return _form_page(request, form, title=pgettext("pastes", "Edit paste"), paste=paste)
    more = slots_posted(request.POST)
    form = PasteForm(request.POST, editing=True, has_password=paste.password_protected, more_files=more)
    form.sends_files = paste.file_count > 1 or bool(paste.filename)
    if ADD_FILE in request.POST:
        return _form_page(request, form, title=pgettext("pastes", "Edit paste"), paste=paste)
    if form.is_valid() and not _too_large(form):
        data = form.api_data()
        serializer = PasteEditSerializer(data={"id": paste.id, **data}, context={"paste_id": paste.id})
        try:
            serializer.is_valid(raise_exception=True)
            changes = {key: value for key, value in serializer.validated_data.items() if key != "id"}
            services.paste_update(paste=paste, changes=changes)
        except (ValidationError, PastesError) as error:
            _api_errors_to_form(form, error)
        else:
            flash.success(request, _("Paste saved."))
            return redirect("pastes:paste-page", paste_id=paste.id)
    return _form_page(request, form, title=pgettext("pastes", "Edit paste"), paste=paste, status=400)


@signed_in
@require_http_methods(["GET", "HEAD", "POST"])
def delete(request: HttpRequest, paste_id: str) -> HttpResponse:
    """GET asks to confirm; only the POST (with CSRF) deletes."""
    paste = _own_paste(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    if request.method != "POST":
        response = render(request, "pastes/delete.html", {"paste": paste})
        add_never_cache_headers(response)
        return response
    services.paste_delete(paste=paste)
    flash.success(request, _("Paste “%(name)s” deleted.") % {"name": paste.name})
    return redirect("pastes:index")


def _readable(request: HttpRequest, paste_id: str) -> Paste | HttpResponse:
    """A paste the reader may take a copy of without burning it: not someone else's burn-after-read paste."""
    reader = _reader(request)
    try:
        paste = services.paste_get_visible(paste_id=paste_id, user=reader)
    except PasteNotFound:
        return render(request, "error.html", {"status": 404, "message": NOT_FOUND}, status=404)
    if paste.burn_after_read and not paste.is_owned_by(reader):
        message = _("This paste burns after reading: reveal it on its page, where it can be copied once.")
        return render(request, "error.html", {"status": 403, "message": message}, status=403)
    if not _is_unlocked(request, paste):
        return redirect("pastes:paste-page", paste_id=paste.id)  # which asks for the password first
    return paste


@signed_in
@require_http_methods(["GET", "HEAD"])
def fork(request: HttpRequest, paste_id: str) -> HttpResponse:
    """A new paste form filled with a copy of a paste the reader can read; posting it creates their own."""
    paste = _readable(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    if not paste.is_owned_by(request.user):
        try:
            paste = services.paste_read(
                paste_id=paste.id, reader=request.user, robot=is_bot_request(request), unlocked=True
            )
        except PasteNotFound:
            return render(request, "error.html", {"status": 404, "message": NOT_FOUND}, status=404)
    name = _("Fork of %(name)s") % {"name": paste.name}
    name = name[: PasteForm.base_fields["name"].max_length]
    initial = {"name": name, "content": paste.content, "syntax": paste.syntax, "encrypted": paste.encrypted}
    initial |= {"filename": paste.filename, **more_files_initial(paste_files(paste))}
    form = PasteForm(initial=initial, more_files=paste.file_count - 1)
    return _form_page(request, form, title=_("Fork “%(name)s”") % {"name": paste.name}, paste=None)


def counted_download_read(request: HttpRequest, paste_id: str) -> Paste | HttpResponse:
    """The paste for a download (the whole paste, a file, the zip), counted as a read like the raw
    text (never burning: _readable refuses those); or the page that says why not."""
    paste = _readable(request, paste_id)
    if isinstance(paste, HttpResponse):
        add_never_cache_headers(paste)
        return paste
    reader = _reader(request)
    if request.method == "GET" and not paste.is_owned_by(reader):
        try:
            paste = services.paste_read(paste_id=paste.id, reader=reader, robot=is_bot_request(request), unlocked=True)
        except PasteNotFound:
            return render(request, "error.html", {"status": 404, "message": NOT_FOUND}, status=404)
    return paste


@require_http_methods(["GET", "HEAD"])
def download(request: HttpRequest, paste_id: str) -> HttpResponse:
    """The content as a file named after the paste; a read like the raw text (counted, never burning here)."""
    paste = counted_download_read(request, paste_id)
    if isinstance(paste, HttpResponse):
        return paste
    response = HttpResponse(paste.content, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, download_name(paste))
    add_never_cache_headers(response)
    return response


def download_name(paste: Paste) -> str:
    """The paste's name as a file name, with its language's usual extension (.txt when none)."""
    stem = slugify(paste.name) or paste.id
    if paste.encrypted:
        return stem + ".e2e.json"  # the envelope as stored: the page downloads the decrypted text
    lexer = lexer_for(paste.content, paste.syntax)
    patterns = [pattern for pattern in lexer.filenames if pattern.startswith("*.") and "[" not in pattern]
    extension = patterns[0][1:] if patterns else ".txt"
    return stem + extension
