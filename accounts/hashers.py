"""Argon2id with OWASP's parameters for the passwords of accounts, pastes, reports and short links."""

from django.contrib.auth.hashers import Argon2PasswordHasher


class OWASPArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id at 19 MiB, 2 passes, 1 lane: OWASP's Password Storage Cheat Sheet's first choice.

    Django's own (100 MiB, 8 lanes) would let 16 parallel password checks, a sign-in burst on
    a small server, take 1.6 GB. The algorithm's name stays "argon2", so hashes made with
    Django's parameters still verify, and are re-made with these at the next sign-in
    (must_update compares the parameters stored in each hash).
    """

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
