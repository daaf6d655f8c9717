"""The code an authenticator app shows, for tests of two-factor sign-in."""

import time

import pyotp


def current_code(secret: str, *, margin: float = 5) -> str:
    """The TOTP code of `secret` now, or of the next 30-second step when fewer than `margin` seconds
    are left in this one: allauth accepts only the current step's code (MFA_TOTP_TOLERANCE 0), and on
    a loaded machine the request that checks it may take seconds to arrive (a flaky failure in CI)."""
    totp = pyotp.TOTP(secret)
    left = totp.interval - time.time() % totp.interval
    if left < margin:
        time.sleep(left + 0.1)
    return totp.now()
