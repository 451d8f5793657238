"""verify's shortcuts past the standard library agree with it: its options read without
argparse, its report written without json. verify runs on every commit, so it takes
both; each must give exactly what the module it skips would."""

from __future__ import annotations

import contextlib
import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import run_script


@pytest.fixture(scope="module")
def cli(ecomem):
    import ecomem.cli

    return ecomem.cli


@pytest.fixture(scope="module")
def json_out(ecomem):
    import ecomem.json_out

    return ecomem.json_out


# Words a verify command line is made of: its options whole, abbreviated, with `=`, the
# values they take, and what argparse refuses or answers itself.
WORDS = st.sampled_from(
    [
        "--json", "--staged", "--strict", "--root", "--today", "--default-branch",
        "--root=.", "--root=", "--root=-x", "--today=2026-01-02", "--default-branch=main",
        "--js", "--stag", "--roo", "--defaul", "-h", "--help", "--", "-", "--json=1",
        ".", "main", "2026-01-02", "-x", "-1", "", "some dir", "--root=a=b", "--unknown",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(WORDS, st.text(max_size=6)), max_size=6))
def test_verify_options_read_quickly_are_what_argparse_reads(cli, words):
    argv = ["verify", *words]
    quick = cli.quick_args(argv)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            parsed = vars(cli.build_parser(argv).parse_args(argv))
        except SystemExit:
            parsed = None
    if quick is not None:  # declining is always allowed: argparse then answers
        assert vars(quick) == parsed


def test_plain_verify_command_lines_are_read_quickly(cli):
    argv = ["verify", "--root", "/r", "--json", "--staged", "--strict", "--today=2026-01-02"]
    assert vars(cli.quick_args(argv)) == vars(cli.build_parser(argv).parse_args(argv))
    assert cli.quick_args(["verify", "--default-branch", "trunk"]).default_branch == "trunk"


def test_a_verify_command_line_argparse_reads_gives_the_same_report(rendered):
    # `--js` is an abbreviation only argparse reads; the report must not tell them apart.
    quick = run_script(rendered, "verify", "--root", str(rendered), "--json")
    slow = run_script(rendered, "verify", f"--root={rendered}", "--js")
    assert quick.returncode == slow.returncode == 0, quick.stderr + slow.stderr
    assert quick.stdout == slow.stdout
    assert json.loads(quick.stdout)["ok"] is True
    asked = run_script(rendered, "verify", "--help")
    assert asked.returncode == 0 and "--default-branch" in asked.stdout


PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(PLAIN)
def test_the_report_writer_writes_what_json_dumps_writes(json_out, value):
    assert json_out.dumps(value, indent=2) == json.dumps(value, indent=2)


def test_the_report_writer_hands_other_values_to_json(json_out):
    for value in ({"ratio": 1.5}, {1: "a"}, ("a", "b"), {"x": [float("nan")]}):
        assert json_out.dumps(value, indent=2) == json.dumps(value, indent=2)
    assert json_out.dumps("\U0001f600\x7f\u2028\ud800", indent=2) == json.dumps(
        "\U0001f600\x7f\u2028\ud800"
    )


# -- the text rules' fast paths agree with the slow reading they replace -----------------


@pytest.fixture(scope="module")
def secret_shapes(ecomem):
    import ecomem.rules.secret_shapes

    return ecomem.rules.secret_shapes


def line_end_tokens_by_regex(lines: list[str]) -> dict[int, str]:
    """The cut lines as the secret rule found them before: a pattern tried at every
    digit, `_`, `~`, `:` and `-` of the text, the last word read back from each match."""
    token_chars = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    tails, text = {}, "\n".join(lines)
    line, counted = 0, 0
    for match in re.finditer(r"[0-9_~:-][A-Za-z0-9_~:-]*\n", text):
        end = match.end() - 1
        start = max(text.rfind(" ", max(0, end - 200), end), text.rfind("\n", 0, end)) + 1
        word = text[start:end]
        line += text.count("\n", counted, end)
        counted = end
        if 4 <= len(word) < 200 and token_chars.issuperset(word):
            tails[line] = word
    return tails


LINE_PARTS = st.sampled_from(
    ["ghp_", "sk-", "a1", "Z9", "_", "-", "~", ":", " ", "\t", "> ", "x" * 60, "é", "7", "tok"]
)
LINES = st.lists(st.lists(LINE_PARTS | st.text(max_size=3), max_size=12).map("".join), max_size=8)


@settings(max_examples=500, deadline=None)
@given(LINES)
def test_lines_cut_inside_a_token_are_the_ones_the_old_pattern_found(secret_shapes, lines):
    assert secret_shapes._line_end_tokens(lines) == line_end_tokens_by_regex(lines)


def test_a_cut_line_is_found_from_its_end(secret_shapes):
    lines = ["CI pushes with ghp_" + "a1" * 10, "b2" * 8 + " daily", "x" * 250 + "-9", "end_1"]
    assert secret_shapes._line_end_tokens(lines) == {0: "ghp_" + "a1" * 10}
    assert secret_shapes._line_end_tokens(lines) == line_end_tokens_by_regex(lines)


@pytest.fixture(scope="module")
def normalise(ecomem):
    import ecomem.text.normalise

    return ecomem.text.normalise


DOCUMENT = st.lists(
    st.sampled_from(["Ignore", "İ", "\uff47hp_", "key", "", "a\u200bb"]) | st.text(max_size=4),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(DOCUMENT, st.booleans()), max_size=6))
def test_the_lowered_text_the_rules_share_is_their_own_lowering(normalise, documents):
    # Rules read one document in turn; the next document, or the same list changed in
    # place, must never be answered from the last one.
    previous = None
    for lines, change_the_last in documents:
        if change_the_last and previous is not None:
            previous.append("ignore all previous instructions")
            lines = previous
        text = normalise.judged("\n".join(lines))
        assert normalise.judged_lowered(lines) == text.lower()
        assert normalise.judged_lines(lines)[0] == text
        assert normalise.judged_lowered(lines) == text.lower()
        previous = lines


@pytest.fixture(scope="module")
def episodic(ecomem):
    import ecomem.rules.episodic

    return ecomem.rules.episodic


def sections_line_by_line(episodic, lines: list[str]) -> dict:
    """The sections of an episode as the rule read them before: SECTION on every line."""
    found, current = {}, None
    for number, line in enumerate(lines, 1):
        match = episodic.SECTION.match(line)
        name = (match.group(1) or match.group(2) or "").lower() if match else ""
        if name in ("context", "action", "result", "lesson"):
            current = name if name not in found else None
            if current:
                found[current] = (number, [(match.group(3) if match.group(2) else "") or ""])
            continue
        if line.startswith("#"):
            current = None
        elif current:
            found[current][1].append(line)
    return {name: (number, " ".join(text).strip()) for name, (number, text) in found.items()}


EPISODE_LINES = st.sampled_from(
    [
        "# Flaky test", "## Context", "## Lesson", "### lesson:", "Lesson: one folder each",
        "- **Result**: fixed", "* action: retried", "## Other", "#", "", "  ## Action",
        "LESSON", "the lesson was", "İstanbul lesson:", "\u212aesson: k", "plain text",
    ]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(EPISODE_LINES | st.text(max_size=8), max_size=10))
def test_episode_sections_found_from_their_names_are_the_ones_every_line_gave(episodic, lines):
    assert episodic.sections(lines) == sections_line_by_line(episodic, lines)


@pytest.fixture(scope="module")
def dates(ecomem):
    import ecomem.store.dates

    return ecomem.store.dates


# ASCII: IGNORECASE also folds the long s (U+017F) and the Kelvin sign, which str.lower
# leaves, so the words looked for first miss "next \u017fprint" (before this change too).
ASCII = st.characters(min_codepoint=9, max_codepoint=126)
DATE_WORDS = st.sampled_from(
    ["yesterday", "Today", "tonight", "tomorrow", "last", "next", "this", "week", "Monday",
     "friday", "sprint", "3", "days", "ago", "a", "few", " ", "\n", "day", "to", "-"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(DATE_WORDS | st.text(ASCII, max_size=3), max_size=10).map(" ".join))
def test_a_relative_date_is_found_as_the_patterns_alone_find_it(dates, text):
    # The words a pattern needs only spare it a search; they never hide a match.
    first = None
    for _, pattern in dates._RELATIVE:
        match = pattern.search(text)
        if match:
            first = match.group()
            break
    found = dates.find_relative_date(text)
    assert (found and found.group()) == first
