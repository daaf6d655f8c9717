"""Helpers for the Playwright tests (the `browser` and `page` fixtures are in tests/conftest.py)."""

import time

from django.conf import settings
from django.test import Client

from shortener.services.admin_mode import SESSION_KEY as ADMIN_MODE_KEY

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def sign_in(context, live_server, user, *, shortener_admin_mode: bool = False) -> None:
    """Give the browser context a session of `user`, as if they had just signed in with their password.

    "Just": allauth's record of a password given moments ago, which its security pages (turning on
    two-factor, adding a passkey, /accounts/2fa/…) ask for before they show. `shortener_admin_mode`:
    the session is in the shortener's admin mode too, as the admin password would have put it.
    """
    client = Client()
    client.force_login(user)
    session = client.session
    session["account_authentication_methods"] = [{"method": "password", "at": time.time(), "reauthenticated": True}]
    session["account_authentication_methods_user"] = str(user.pk)
    if shortener_admin_mode:
        session[ADMIN_MODE_KEY] = time.time() + 3600
    session.save()
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])


def overflow(page) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def collect_csp_errors(page) -> list[str]:
    """A list that fills with every CSP refusal the page logs to the console."""
    errors: list[str] = []
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text
            else None
        ),
    )
    return errors


# Words of letters (not URLs, ids or hashes, which may break anywhere) that a line break cuts in two.
_MID_WORD_WRAPS = r"""() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const element = node.parentElement;
    const skipped = "script, style, pre, code, textarea, select, datalist, option, .visually-hidden, [hidden]";
    if (!element || element.closest(skipped)) continue;
    // Whole words only: a letter run inside a longer token (a URL, an id) may rightly break.
    const words = /(^|\s)[("'\u201c\u2018]*([A-Za-z]{2,24})[)"'\u201d\u2019.,:;!?]*(?=\s|$)/g;
    let match;
    while ((match = words.exec(node.data))) {
      const start = match.index + match[0].indexOf(match[2]);
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, start + match[2].length);
      // On two lines when one piece starts below where another ends (pieces of one line overlap).
      const pieces = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      if (pieces.some((a) => pieces.some((b) => a.top >= b.bottom - 1))) broken.push(match[2]);
    }
  }
  return broken;
}"""


def mid_word_wraps(page) -> list[str]:
    """The words the page breaks across two lines ("Del/ete"): none should be."""
    return page.evaluate(_MID_WORD_WRAPS)
