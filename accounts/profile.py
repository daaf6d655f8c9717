"""/accounts/profile/: the bio and avatar B's user object shows (GET /pastes/accounts/@name), set by their owner.

The avatar is a URL (http or https) or an uploaded image (accounts/avatars.py), whose serving URL
is then stored as the avatar: the user object shows either the same way. Badges and
max_paste_chars are staff's, in the admin; the page shows them with how much of the quota is used.
"""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.validators import URLValidator
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

from accounts import avatars, language
from accounts.models import Avatar
from pastes.models import Paste, PasteProfile

AVATAR_URL_MAX_LENGTH = PasteProfile._meta.get_field("avatar").max_length
BIO_MAX_LENGTH = PasteProfile._meta.get_field("bio").max_length


class ProfileForm(forms.Form):
    bio = forms.CharField(
        required=False,
        max_length=BIO_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        label=_("Bio"),
        help_text=format_lazy(
            _("A few words about you, shown on your public account. At most {max_length} characters."),
            max_length=BIO_MAX_LENGTH,
        ),
    )
    # Checked in clean_avatar_url: the URL of an uploaded avatar, shown back as it is, may name a
    # host URLField would refuse (localhost without a port, a name without a dot).
    avatar_url = forms.CharField(
        required=False,
        max_length=AVATAR_URL_MAX_LENGTH,
        widget=forms.URLInput,
        label=_("Avatar URL"),
        help_text=_("An http or https address of an image. Empty: no avatar."),
    )
    avatar_file = forms.FileField(
        required=False,
        label=_("Or upload an image"),
        help_text=_("PNG, JPEG or WebP; it is shrunk to 256 by 256 pixels at most."),
        widget=forms.FileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )

    def __init__(self, *args: object, current_avatar: str = "", **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.current_avatar = current_avatar
        self.encoded: avatars.EncodedAvatar | None = None

    def clean_avatar_url(self) -> str:
        url = self.cleaned_data["avatar_url"]
        if not url or url == self.current_avatar:
            return url
        # http and https only: browsers fetch it for every reader of the account.
        try:
            URLValidator(schemes=["http", "https"])(url)
        except ValidationError:
            raise forms.ValidationError(gettext("Enter an http:// or https:// address."), code="invalid_url") from None
        return url

    def clean_avatar_file(self):
        upload = self.cleaned_data["avatar_file"]
        if upload:
            try:
                self.encoded = avatars.encode(upload)
            except avatars.InvalidAvatar as refusal:
                raise forms.ValidationError(str(refusal), code="invalid_image") from refusal
        return upload

    def clean(self) -> dict:
        data = super().clean()
        url_changed = data.get("avatar_url", self.current_avatar) != self.current_avatar
        if self.encoded is not None and url_changed and data.get("avatar_url"):
            raise forms.ValidationError(gettext("Give an avatar URL or an image to upload, not both."), code="both")
        return data


def uploaded_src(user) -> str | None:
    avatar = Avatar.objects.filter(user=user).first()
    return None if avatar is None else reverse("accounts:avatar", kwargs={"name": avatar.name.rsplit("/", 1)[-1]})


def _body_too_big(request: HttpRequest) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    # The image, the bio (up to 4 bytes a character) and the form's other fields and boundaries.
    return length > settings.ACCOUNTS_AVATAR_MAX_BYTES + 4 * BIO_MAX_LENGTH + 16 * 1024


def quota_used(user) -> int:
    return Paste.objects.filter(owner=user).unexpired().total_chars()


def save(request: HttpRequest, form: ProfileForm) -> None:
    """Write the bio and avatar in one transaction; a file written for it goes again if that fails."""
    user = request.user
    data = form.cleaned_data
    new_file = avatars.write_file(user, form.encoded) if form.encoded is not None else None
    try:
        with transaction.atomic():
            profile, _ = PasteProfile.objects.select_for_update().get_or_create(user=user)
            profile.bio = data["bio"]
            if new_file is not None:
                profile.avatar = avatars.url_of(request, avatars.attach(user, new_file, form.encoded))
            elif data["avatar_url"] != profile.avatar:
                # Another URL, or none: an uploaded image is no longer used.
                avatars.detach(user)
                profile.avatar = data["avatar_url"]
            profile.save()
    except BaseException:
        if new_file is not None:
            default_storage.delete(new_file)
        raise


# csrf_exempt here and csrf_protect below, as Django's documentation does for upload handlers: the
# CSRF check reads the body, which would first copy a huge upload to a temporary file. A body too
# big is refused unread; it changes nothing, so it needs no token.
@csrf_exempt
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and _body_too_big(request):
        current = PasteProfile.for_user(request.user)
        form = ProfileForm(initial={"bio": current.bio, "avatar_url": current.avatar}, current_avatar=current.avatar)
        return _page(request, form, current, status=413, body_error=avatars.too_big_message())
    return _profile(request)


@csrf_protect
def _profile(request: HttpRequest) -> HttpResponse:
    current = PasteProfile.for_user(request.user)
    if request.method == "POST":
        form = ProfileForm(request.POST, request.FILES, current_avatar=current.avatar)
        if form.is_valid():
            save(request, form)
            messages.success(request, gettext("Your profile is saved."))
            return redirect("accounts:profile")
        status = 400
    else:
        form = ProfileForm(initial={"bio": current.bio, "avatar_url": current.avatar}, current_avatar=current.avatar)
        status = 200
    return _page(request, form, current, status=status)


def _page(request: HttpRequest, form: ProfileForm, current: PasteProfile, *, status: int, body_error: str = ""):
    context = {
        "form": form,
        "body_error": body_error,
        "profile": current,
        # Shown by its path: the page loads no image from elsewhere (SECURE_CSP), an avatar URL included.
        "uploaded_src": uploaded_src(request.user),
        "quota_used": quota_used(request.user),
        "max_bytes_kib": settings.ACCOUNTS_AVATAR_MAX_BYTES // 1024,
        "language_preference": language.preferred_language(request.user),
    }
    return render(request, "accounts/profile.html", context, status=status)
