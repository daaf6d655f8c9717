"""A real S3-compatible server for the tests: moto in server mode, in a process of its own.

The app talks to it over HTTP through django-storages and boto3, exactly as to any S3-compatible
object storage; nothing in the app is patched.
"""

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.servers import free_port

ACCESS_KEY = "test-access-key"
SECRET_KEY = "test-secret-key"
REGION = "us-east-1"


@contextmanager
def moto_server() -> Iterator[str]:
    """Start `moto_server` on a free port; yield its endpoint URL; stop it at the end."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{endpoint}/moto-api/", timeout=2)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto_server did not start") from None
                time.sleep(0.2)
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def s3_storage_settings(endpoint: str, bucket: str) -> dict:
    """The STORAGES entry config/settings.py makes for PASTES_ATTACHMENT_STORAGE=s3."""
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": endpoint,
            "region_name": REGION,
            "access_key": ACCESS_KEY,
            "secret_key": SECRET_KEY,
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }


def create_bucket(endpoint: str, bucket: str) -> None:
    import boto3

    boto3.client(
        "s3", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY
    ).create_bucket(Bucket=bucket)
