"""personal_data: card numbers, IBANs and US SSNs by checksum; numbers in prose pass.

Every number is assembled at run time: an issuer prefix, random digits and a computed check
digit (Luhn for cards, mod 97 for IBANs), so this file holds no card or account number.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_rng = random.Random(97)


def luhn_digit(partial: str) -> str:
    """The check digit that makes `partial` + digit pass Luhn."""
    total = 0
    for position, char in enumerate(reversed(partial)):
        value = int(char)
        if position % 2 == 0:  # doubled: these sit at odd positions once the digit is added
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return str((10 - total % 10) % 10)


def card(prefix: str, length: int) -> str:
    body = prefix + "".join(_rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + luhn_digit(body)


def broken_check_digit(number: str) -> str:
    return number[:-1] + str((int(number[-1]) + 1) % 10)


def grouped(number: str, sizes: tuple[int, ...], sep: str = " ") -> str:
    parts, at = [], 0
    for size in sizes:
        parts.append(number[at : at + size])
        at += size
    return sep.join(parts)


def iban(country: str, account: str) -> str:
    """An IBAN with correct check digits for `country` + `account` (mod 97)."""
    rearranged = account + country + "00"
    number = int("".join(str(int(c, 36)) for c in rearranged))
    return f"{country}{98 - number % 97:02d}{account}"


def digits(n: int) -> str:
    return "".join(_rng.choice("0123456789") for _ in range(n))


# (network, a prefix the network issues, card length)
NETWORKS = [
    ("Visa", "4", 16),
    ("Visa", "4", 13),
    ("Mastercard", "53", 16),
    ("Mastercard", "2221", 16),
    ("American Express", "37", 15),
    ("Discover", "6011", 16),
    ("Discover", "65", 16),
    ("Diners Club", "36", 14),
    ("JCB", "3530", 16),
    ("UnionPay", "62", 19),
    ("Maestro", "6759", 16),
    ("Mir", "2201", 16),
]


@pytest.fixture(scope="module")
def personal_data(ecomem):
    import ecomem.rules.personal_data

    return ecomem.rules.personal_data


def rules(module, text: str) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in module.scan("m.md", text.split("\n"))]


@pytest.mark.parametrize(("network", "prefix", "length"), NETWORKS)
def test_a_card_number_with_issuer_prefix_length_and_luhn_is_reported(
    personal_data, network, prefix, length
):
    number = card(prefix, length)
    layouts = [number, grouped(number, (4, 4, 4, 4, 3)[: (length + 3) // 4])]
    if length == 15:
        layouts.append(grouped(number, (4, 6, 5), "-"))
    for layout in layouts:
        findings = personal_data.scan("m.md", ["# Billing", "", f"Card on file: {layout}."])
        assert [(f.rule, f.line) for f in findings] == [("pii.payment-card", 3)], layout
        assert network in findings[0].message
        assert number[-8:] not in findings[0].message and layout not in findings[0].message


def test_network_test_numbers_are_reported_too(personal_data):
    # The networks' published test numbers pass every check; memory is no place for them.
    visa_test = "4" + "1" * 14
    number = visa_test + luhn_digit(visa_test)
    assert rules(personal_data, f"use {grouped(number, (4, 4, 4, 4))} in staging") == [
        ("pii.payment-card", 1)
    ]


@pytest.mark.parametrize(("network", "prefix", "length"), NETWORKS)
def test_a_wrong_check_digit_is_not_a_card(personal_data, network, prefix, length):
    assert rules(personal_data, f"Card on file: {broken_check_digit(card(prefix, length))}") == []


@pytest.mark.parametrize(
    "number",
    [
        pytest.param(card("1", 16), id="no-issuer-starts-with-1"),
        pytest.param(card("9", 16), id="no-issuer-starts-with-9"),
        pytest.param(card("37", 16), id="amex-prefix-at-visa-length"),
        pytest.param(card("4", 15), id="visa-prefix-at-amex-length"),
        pytest.param(card("53", 19), id="mastercard-prefix-at-19"),
    ],
)
def test_a_luhn_valid_number_outside_the_issuer_tables_is_not_a_card(personal_data, number):
    assert rules(personal_data, f"order number {number} shipped") == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("The build took 1234567 ms on 2024-03-01.", id="duration-and-date"),
        pytest.param("Released 2.14.1 on 2024-01-15, then 2.14.2 on 2024-02-01.", id="versions"),
        pytest.param("timestamp 2024-01-15T10:20:30.123456Z", id="iso-timestamp"),
        pytest.param("epoch ms 1705312830123 and ns 1705312830123456789", id="epochs"),
        pytest.param("Call +1 555-123-4567 or 0800 123 4567.", id="phone-numbers"),
        pytest.param(f"version {card('4', 16)[:4]}.{digits(4)}.{digits(4)}", id="dotted"),
        pytest.param(f"commit 4{digits(15)}abc in the log", id="digits-inside-a-word"),
        pytest.param(f"build-{card('4', 16)} is the artifact", id="after-a-dash"),
        pytest.param(f"pi is 3.{digits(18)}", id="decimal"),
        pytest.param("between 1000 2000 3000 4000 rows", id="counts-in-prose"),
        pytest.param("ISBN 978-0-13-468599-1", id="isbn"),
        pytest.param(f"id {_rng.getrandbits(60)} from the api", id="large-id"),
        pytest.param("| 2024 | 12 | 31 | 1999 | 2000 |", id="table-of-years"),
        pytest.param("uuid 4b6f2a10-9c1d-4e2f-8a3b-5c6d7e8f9012", id="uuid"),
    ],
)
def test_numbers_in_prose_dates_and_versions_pass(personal_data, text):
    assert rules(personal_data, text) == []


# -- IBANs --------------------------------------------------------------------------

# (country, account part of that country's length)
ACCOUNTS = [
    ("DE", lambda: digits(18)),
    ("GB", lambda: "WEST" + digits(14)),
    ("FR", lambda: digits(23)),
    ("NL", lambda: "ABNA" + digits(10)),
    ("NO", lambda: digits(11)),
    ("CH", lambda: digits(17)),
]


@pytest.mark.parametrize(("country", "account"), ACCOUNTS, ids=[c for c, _ in ACCOUNTS])
def test_an_iban_with_valid_check_digits_is_reported(personal_data, country, account):
    number = iban(country, account())
    spaced = " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    for layout in (number, spaced):
        findings = personal_data.scan("m.md", ["", f"Refunds go to {layout} (ops account)."])
        assert [(f.rule, f.line) for f in findings] == [("pii.iban", 2)], layout
        assert number[4:] not in findings[0].message.replace(" ", "")


@pytest.mark.parametrize(("country", "account"), ACCOUNTS, ids=[c for c, _ in ACCOUNTS])
def test_an_iban_with_wrong_check_digits_is_not(personal_data, country, account):
    number = iban(country, account())
    wrong = f"{number[:2]}{(int(number[2:4]) + 1) % 100:02d}{number[4:]}"
    assert rules(personal_data, f"Refunds go to {wrong}.") == []


def test_an_iban_of_the_wrong_length_or_an_unknown_country_is_not(personal_data):
    too_short = iban("DE", digits(17))
    unknown_country = iban("ZZ", digits(18))
    assert rules(personal_data, f"{too_short} and {unknown_country}") == []


def test_upper_case_codes_in_prose_are_not_ibans(personal_data):
    text = "Ticket AB12 3456 7890 1234 moved; see RFC 2119 and ISO 8601 and AB12CD34EF56GH78."
    assert rules(personal_data, text) == []


# -- US social security numbers -------------------------------------------------------


def test_a_dashed_ssn_in_the_issued_ranges_is_reported(personal_data):
    number = f"{_rng.randint(1, 665):03d}-{_rng.randint(1, 99):02d}-{_rng.randint(1, 9999):04d}"
    findings = personal_data.scan("m.md", ["Contractor", f"- SSN: {number}"])
    assert [(f.rule, f.line) for f in findings] == [("pii.us-ssn", 2)]
    assert number not in findings[0].message


@pytest.mark.parametrize(
    "number",
    [
        pytest.param("000-12-3456", id="area-000"),
        pytest.param("666-12-3456", id="area-666"),
        pytest.param("912-12-3456", id="area-9xx"),
        pytest.param("123-00-4567", id="group-00"),
        pytest.param("123-45-0000", id="serial-0000"),
        pytest.param("078-05-1120", id="voided-wallet-card"),
        pytest.param("123-45-6789", id="sequence"),
        pytest.param("212345678", id="no-dashes"),
        pytest.param("2024-01-1234", id="four-two-four"),
        pytest.param("12-345-6789", id="two-three-four"),
    ],
)
def test_ssn_shapes_that_are_never_issued_or_not_dashed_pass(personal_data, number):
    assert rules(personal_data, f"- id: {number}") == []


def test_one_finding_per_rule_and_line(personal_data):
    first, second = card("4", 16), card("53", 16)
    assert rules(personal_data, f"{first} then {second}\n{first}") == [
        ("pii.payment-card", 1),
        ("pii.payment-card", 2),
    ]


@settings(max_examples=100)  # cheap: not bound to the copier profile
@given(st.lists(st.text(st.characters(blacklist_characters="\n\r"), max_size=40), max_size=6))
def test_any_text_gives_well_formed_findings(personal_data, lines):
    for finding in personal_data.scan("m.md", lines):
        assert 1 <= finding.line <= len(lines)
        assert finding.rule.startswith("pii.")
        assert finding.severity == "error"


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("4" * 50000, id="one-long-number"),
        pytest.param("4 " * 25000, id="spaced-digits"),
        pytest.param("DE" + "1" * 50000, id="long-iban-like"),
        pytest.param("123-" * 20000, id="dash-runs"),
    ],
)
def test_pathological_lines_are_scanned_to_the_end(personal_data, line):
    for finding in personal_data.scan("m.md", [line]):
        assert finding.line == 1


def test_verify_runs_the_personal_data_rules(ecomem):
    import ecomem.rules.personal_data
    import ecomem.rules.registry

    assert ecomem.rules.personal_data.scan in ecomem.rules.registry.CONTENT_RULES
