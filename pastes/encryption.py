"""The envelope of an end-to-end encrypted paste: what the server stores and checks, never opens.

The browser (pastes/static/pastes/e2e.js) or a script encrypts the text with AES-GCM under a
random 256-bit key that lives only in the link's fragment (`#key=…`), which browsers never
send to a server. The paste's content is then this JSON object, on one line:

    {"v": 1, "alg": "AES-GCM-256", "iv": "<12 bytes>", "ct": "<ciphertext and 16-byte tag>"}

`iv` and `ct` are base64url without padding (RFC 4648 §5); `ct` is AES-GCM's output over the
UTF-8 text, with no additional data. The server checks only this shape, so that a paste marked
encrypted is one a reader's browser can try to open; it cannot check the ciphertext itself.
The format and a Python script are in pastes/README.md.
"""

import base64
import binascii
import json

VERSION = 1
ALGORITHM = "AES-GCM-256"
IV_BYTES = 12
TAG_BYTES = 16
FIELDS = {"v", "alg", "iv", "ct"}

ENVELOPE_MESSAGE = (
    'An encrypted paste\'s content must be the envelope {"v": 1, "alg": "AES-GCM-256", "iv": …, "ct": …} '
    "with iv (12 bytes) and ct (at least 16 bytes) in base64url without padding."
)


def _base64url(value: object) -> bytes | None:
    if not isinstance(value, str) or "=" in value or not value.isascii():
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def is_envelope(content: str) -> bool:
    """Whether `content` is a well-formed envelope (version 1): what an encrypted paste must hold."""
    try:
        envelope = json.loads(content)
    except ValueError:
        return False
    if not isinstance(envelope, dict) or set(envelope) != FIELDS:
        return False
    if envelope["v"] != VERSION or type(envelope["v"]) is not int or envelope["alg"] != ALGORITHM:
        return False
    iv, ciphertext = _base64url(envelope["iv"]), _base64url(envelope["ct"])
    return iv is not None and len(iv) == IV_BYTES and ciphertext is not None and len(ciphertext) >= TAG_BYTES
