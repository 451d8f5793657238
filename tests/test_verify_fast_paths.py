"""verify's shortcuts past the standard library agree with it: its options read without
argparse, its report written without json. verify runs on every commit, so it takes
both; each must give exactly what the module it skips would."""

from __future__ import annotations

import contextlib
import io
import json

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
