"""The Python side of encrypted pastes, taken from pastes/README.md so that the documented snippet is what runs."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "pastes" / "README.md"


def readme_snippet() -> dict:
    """Run the README's encryption snippet (the python block after `<!-- e2e-snippet -->`) and return its names."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- e2e-snippet -->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match, "pastes/README.md lost its encryption snippet"
    names: dict = {}
    exec(compile(match.group(1), str(README), "exec"), names)  # our own documentation, run as written
    return names


snippet = readme_snippet()
encrypt = snippet["encrypt"]
decrypt = snippet["decrypt"]


def seal(text: str, key: str) -> str:
    """The envelope of `text` under an existing `key` (every file and filename of a paste shares its key)."""
    import json
    import os

    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    iv = os.urandom(12)
    ciphertext = AESGCM(snippet["unb64url"](key)).encrypt(iv, text.encode("utf-8"), None)
    envelope = {"v": 1, "alg": "AES-GCM-256", "iv": snippet["b64url"](iv), "ct": snippet["b64url"](ciphertext)}
    return json.dumps(envelope, separators=(",", ":"))
