"""Parts for building credential-shaped samples at run time, so no test file holds one."""

from __future__ import annotations

import random
import string

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
DIGITS = string.digits


def random_text(rng: random.Random, alphabet: str, size: int) -> str:
    """Random text using every character class (lower, upper, digit) that `alphabet` has.

    Real keys mix their classes; a sample that happened to be all digits could
    slip past a rule for a reason no real key would.
    """
    needed = [
        group
        for group in (string.ascii_lowercase, string.ascii_uppercase, string.digits)
        if set(group) & set(alphabet) and size >= 3
    ]
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(size))
        if all(set(value) & set(group) for group in needed):
            return value
