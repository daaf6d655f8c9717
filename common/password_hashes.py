"""Password hashes given from outside (an import): only the kind this server makes itself.

A hash carries its own cost (PBKDF2's iterations, bcrypt's rounds, Argon2's and scrypt's memory
and time), and every check of a password against it pays that cost: an imported PBKDF2 hash of
150,000,000 iterations made each anonymous guess at a link's password burn 34 s of CPU. A hash
cannot be rehashed without its password, so one that the server would not make today (another
algorithm, or another work factor, higher or lower) is refused rather than stored.
"""

from django.contrib.auth.hashers import get_hashers, identify_hasher


def is_own_hash(encoded: str) -> bool:
    """Whether one of PASSWORD_HASHERS, with the settings it has now, could have made `encoded`.

    A hasher's must_update() is what Django itself uses to rehash an outdated hash at the next
    sign-in: False means the algorithm's parameters are the server's own.
    """
    try:
        return not identify_hasher(encoded).must_update(encoded)
    except ValueError:  # unknown algorithm, a malformed hash, or a hasher whose library is absent
        return False


def own_algorithm() -> str:
    """The name (as a hash begins) of the algorithm the server hashes new passwords with."""
    return get_hashers()[0].algorithm
