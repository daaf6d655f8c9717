"""The test identity provider in its own process: granian serving tests/oidc_provider on a free port."""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.servers import BASE_DIR, GRANIAN, LoggedProcess, free_port

CLIENT_ID = "webtools-under-test"
CLIENT_SECRET = "client-secret-of-the-service-under-test"


class IdentityProvider(LoggedProcess):
    """allauth's OIDC provider with `users` ({"username", "password", "email", "verified"}) and one
    client whose redirect URI is `redirect_uri`; `url` is its issuer."""

    def __init__(self, *, redirect_uri: str, users: list[dict]) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="oidc-provider-")
        folder = Path(self.directory.name)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        key_file = folder / "key.pem"
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        key_file.write_bytes(pem)
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.oidc_provider.settings",
            "OIDC_PROVIDER_DATABASE": str(folder / "provider.sqlite3"),
            "OIDC_PROVIDER_KEY_FILE": str(key_file),
        }
        spec = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "redirect_uri": redirect_uri, "users": users}
        subprocess.run(
            [sys.executable, "-m", "tests.oidc_provider.setup", json.dumps(spec)],
            cwd=BASE_DIR,
            env=env,
            check=True,
            timeout=120,
        )
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(
            [
                str(GRANIAN),
                "--interface=wsgi",
                "tests.oidc_provider.wsgi:application",
                "--host=127.0.0.1",
                f"--port={self.port}",
                "--workers=1",
                "--blocking-threads=4",
            ],
            env,
        )
        try:
            self.wait_until_up()
        except BaseException:
            self.stop()
            raise

    def wait_until_up(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.output()
            try:
                if httpx.get(f"{self.url}/.well-known/openid-configuration", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the identity provider did not start:\n{self.output()}")

    def stop(self) -> None:
        super().stop()
        self.directory.cleanup()
