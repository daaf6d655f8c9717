"""The account area's own pages, beside allauth's: its home, accepting an invitation, and staff sending one."""

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_safe

from accounts import invitations
from accounts.forms import InvitationForm


@login_required
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """/accounts/: where "Signed in as …" leads; every page of the account area, one link each."""
    return render(request, "accounts/home.html")


@require_safe
def accept_invitation(request: HttpRequest, token: str) -> HttpResponse:
    """Open the sign-up form for the invited address, or say why the link no longer can."""
    if settings.ACCOUNTS_REGISTRATION == "closed":
        context = {"reason": gettext("Sign-up is closed.")}
        return render(request, "accounts/invitation_refused.html", context, status=403)
    try:
        email = invitations.invited_email(token)
    except invitations.InvalidInvitation as refusal:
        return render(request, "accounts/invitation_refused.html", {"reason": str(refusal)}, status=400)
    invitations.accept(request, email)
    return redirect("account_signup")


@staff_member_required
@require_http_methods(["GET", "HEAD", "POST"])
def invite(request: HttpRequest) -> HttpResponse:
    """Staff mail an invitation to one address (the admin links here; `manage.py invite` does the same)."""
    form = InvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        invitations.send_invitation(email, request.build_absolute_uri("/"), language=form.cleaned_data["language"])
        messages.success(request, gettext("Invitation mailed to {email}.").format(email=email))
        return redirect("accounts:invite")
    context = {
        "form": form,
        "registration": settings.ACCOUNTS_REGISTRATION,
        "max_age": settings.ACCOUNTS_INVITE_MAX_AGE,
    }
    return render(request, "accounts/invite.html", context)
