"""Personal data in memory: card numbers, IBANs and US social security numbers.

The protocol keeps personal data and ID numbers out of memory. Each rule here needs a
number's whole structure, not just its digits: a card number has an issuer prefix, a
length that issuer uses and a valid Luhn check digit; an IBAN has its country's length
and passes mod 97; a social security number avoids the area, group and serial values
that are never issued. Prose numbers, dates, versions and ids fail one of those tests.
Test card numbers published by the card networks pass them and are reported too:
memory is not the place for them either. KNOWN_TEST_VALUES are the exception: values every
tutorial prints as the example (Stripe's 4242 card, the IBAN registry's example), which
docs/verify.md lists as placeholders.

Messages never repeat the number.
"""

from __future__ import annotations

from ..findings import ERROR, Finding
from ..lazy_re import lazy
from ..text.normalise import judged_lines

FIX = "delete it from memory; personal data and ID numbers never belong there"
# Documentation's stand-ins, digits and letters only: Stripe's test Visa card and the
# example IBAN of the SWIFT registry (GB82 WEST 1234 5698 7654 32).
# The German example IBAN of the same registry and of most bank docs (DE89 3704 0044 0532
# 0130 00) is one too.
KNOWN_TEST_VALUES = frozenset(
    ("4242" * 4, "GB82" + "WEST" + "12345698765432", "DE89" + "370400440532013000")
)

# A run of digits, optionally grouped by single spaces or dashes, that is not part of a
# longer token, a decimal, a version or a path. Each pattern starts with a character
# class and checks what precedes it afterwards: the regex engine skips fast to a class,
# while a leading lookbehind is tried at every position.
# The whole run or nothing: a run that goes on past 40 characters is not one number.
_DIGIT_RUN = lazy(
    r"[0-9](?<![\w.,/:+-][0-9])(?<![0-9][ -][0-9])(?:[0-9]|[ -](?=[0-9])){8,40}"
    r"(?![\w/:+-]|[.,][0-9]|[ -][0-9])"
)
_CARD_LAYOUT = lazy(
    r"[0-9]{12,19}"
    r"|[0-9]{4}(?P<sep>[ -])[0-9]{4}(?P=sep)[0-9]{4}(?P=sep)[0-9]{1,4}(?:(?P=sep)[0-9]{1,3})?"
    r"|[0-9]{4}(?P<amex>[ -])[0-9]{6}(?P=amex)[0-9]{4,5}"
)
_SSN_LAYOUT = lazy(r"([0-9]{3})-([0-9]{2})-([0-9]{4})")
# A 3-2-4 number that a ticket, case or order word (or a `KEY-` or `#` prefix) leads is an
# id of that system, not a social security number.
_TICKET_LEAD = lazy(
    r"(?:(?i:ticket|case|order|invoice|issue|incident|inc|req|request|change|build|run|job"
    r"|bug|ref|reference|po|rma|claim|tracking|confirmation|booking)[ \t]*(?:no\.?|number|id)?"
    r"[ \t]*[:#]?[ \t]*|[A-Za-z][A-Za-z0-9]*-|#)$"
)
# Two letters, two check digits, then the account in groups of four (spaces optional).
_IBAN = lazy(r"[A-Z](?<![A-Za-z0-9][A-Z])[A-Z][0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?")

# (network, issuer prefixes as inclusive ranges, card lengths)
_ISSUERS = (
    ("Visa", ((4, 4),), (13, 16, 19)),
    ("Mastercard", ((51, 55), (2221, 2720)), (16,)),
    ("American Express", ((34, 34), (37, 37)), (15,)),
    ("Discover", ((6011, 6011), (644, 649), (65, 65), (622126, 622925)), (16, 17, 18, 19)),
    ("Diners Club", ((300, 305), (36, 36), (38, 39)), (14, 15, 16, 17, 18, 19)),
    ("JCB", ((3528, 3589),), (16, 17, 18, 19)),
    ("UnionPay", ((62, 62),), (16, 17, 18, 19)),
    ("Maestro", ((5018, 5018), (5020, 5020), (5038, 5038), (5893, 5893)), (13, 16, 19)),
    ("Maestro", ((6304, 6304), (6759, 6759), (6761, 6763)), (13, 16, 19)),
    ("Mir", ((2200, 2204),), (16, 17, 18, 19)),
)

# IBAN length per country, from the SWIFT IBAN registry.
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,  # codespell:ignore fo
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30,
    "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
    "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip

# Prefilters: the text reduced to its shape (upper-case letters `A`, digits `0`, space and
# dash ` `, anything else `.`), in which each rule needs a literal before its regex runs.
# Dates (`0000 00 00`), versions and counts hold none of them.
_SHAPE = bytes(
    ord("A") if chr(i).isupper() and i < 128
    else ord("0") if chr(i).isdigit() and i < 128
    else ord(" ") if chr(i) in " -"
    else ord(".")
    for i in range(256)
)  # fmt: skip
_NUMBER_HINTS = (b"000000000000", b"0000 0000 0000", b"0000 000000 0000", b"000 00 0000")
_IBAN_HINT = b"AA00"


def scan(path: str, lines: list[str]) -> list[Finding]:
    text = judged_lines(lines)[0]  # text/normalise.py
    hits: dict = {}  # (line, rule) -> message; one finding per rule per line

    def report(offset: int, rule: str, message: str) -> None:
        hits.setdefault((text.count("\n", 0, offset) + 1, rule), message)

    shape = text.encode("utf-8", "ignore").translate(_SHAPE)
    if any(hint in shape for hint in _NUMBER_HINTS):
        for match in _DIGIT_RUN.finditer(text):
            run = match.group()
            network = _card_network(run)
            if network:
                report(match.start(), "pii.payment-card", f"{network} card number: {FIX}")
            elif _is_ssn(run) and not _TICKET_LEAD.search(
                text, max(0, match.start() - 30), match.start()
            ):
                report(match.start(), "pii.us-ssn", f"US social security number: {FIX}")
    if _IBAN_HINT in shape:
        for match in _IBAN.finditer(text):
            if _is_iban(match.group()):
                report(match.start(), "pii.iban", f"IBAN ({match.group()[:2]}…): {FIX}")
    return sorted(
        Finding(path, line, rule, ERROR, message) for (line, rule), message in hits.items()
    )


def _card_network(run: str) -> str | None:
    """The card network whose numbers `run` matches in prefix, length and Luhn digit."""
    if not _CARD_LAYOUT.fullmatch(run):
        return None
    digits = run.replace(" ", "").replace("-", "")
    if digits in KNOWN_TEST_VALUES or not _luhn_valid(digits):
        return None
    for network, ranges, lengths in _ISSUERS:
        if len(digits) not in lengths:
            continue
        for low, high in ranges:
            if low <= int(digits[: len(str(low))]) <= high:
                return network
    return None


def _luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _is_ssn(run: str) -> bool:
    """Dashed 3-2-4 digits in the ranges the Social Security Administration issues."""
    match = _SSN_LAYOUT.fullmatch(run)
    if not match:
        return False
    area, group, serial = match.groups()
    if area in ("000", "666") or area >= "900" or group == "00" or serial == "0000":
        return False
    # Numbers printed in SSA leaflets and on sample cards, never issued to a person.
    return run not in ("078-05-1120", "219-09-9999", "123-45-6789")


def _is_iban(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    length = _IBAN_LENGTHS.get(compact[:2])
    if length is not None and compact[:length] in KNOWN_TEST_VALUES:
        return False
    if length is None or len(compact) < length:
        return False
    if len(compact) > length:
        # Grouped text can run on into the next word ("… 0130 00 AND"): keep the IBAN's part.
        if " " not in candidate:
            return False
        compact = compact[:length]
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1
