"""Package stores in a monorepo (`eco_mem.pyz init PATH`): one skill, a store per package,
read closest first; whole-repository commands see every store. Real copier, real git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    MEMORY,
    RUNTIME_CONTRACTS,
    SKILL,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    work_tree_bytes,
)
from tests.memory_helpers import SCRIPT

WEB = "packages/web"
API = "packages/api"
DOCS = "packages/docs"
WEB_MEMORY = f"{WEB}/{MEMORY}"


def mem_in(host: Path, folder: str, *args: str) -> subprocess.CompletedProcess:
    """Run eco_mem.pyz with `folder` (repo-relative) as the working folder, as an agent in
    that package would."""
    return subprocess.run(
        [sys.executable, str(host / SCRIPT), *args],
        cwd=host / folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result


def fact_in(host: Path, folder: str, title: str, *extra: str) -> subprocess.CompletedProcess:
    return mem_in(
        host,
        folder,
        *("new", "semantic", "--title", title, "--source", "verified", "--scope", "repo"),
        *("--expires", "never", "--body", "Checked in the repository.", *extra),
    )


@pytest.fixture(scope="module")
def pristine(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A monorepo with three packages (web has its own AGENTS.md), eco-mem installed."""
    host = init_repo(tmp_path_factory.mktemp("monorepo") / "host")
    for package in (WEB, API, DOCS):
        (host / package / "src").mkdir(parents=True)
        (host / package / "src" / "index.ts").write_text("export {};\n", encoding="utf-8")
    (host / WEB / "AGENTS.md").write_bytes(b"# Web\r\n\r\nUse pnpm.\r\n")
    copy_template(template_repo, host)
    commit_all(host, "install eco-mem")
    return host


@pytest.fixture(scope="module")
def installed(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The monorepo with a package store in web and docs, committed."""
    import shutil

    host = tmp_path_factory.mktemp("stores") / "host"
    shutil.copytree(pristine, host, symlinks=True)
    ok(mem_in(host, ".", "init", WEB))
    ok(mem_in(host, "packages", "init", "docs"))  # PATH is read from the working folder
    commit_all(host, "package stores")
    return host


@pytest.fixture
def host(installed: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "host"
    shutil.copytree(installed, copy, symlinks=True)
    return copy


def test_init_makes_a_package_store_with_no_second_skill(pristine: Path, tmp_path: Path) -> None:
    import shutil

    host = tmp_path / "host"
    shutil.copytree(pristine, host, symlinks=True)
    done = ok(mem_in(host, ".", "init", WEB))
    assert WEB_MEMORY in done.stdout
    for drawer in ("working", "semantic", "episodic", "procedural"):
        index = (host / WEB_MEMORY / drawer / "INDEX.md").read_text(encoding="utf-8")
        root_index = (host / MEMORY / drawer / "INDEX.md").read_text(encoding="utf-8")
        # The root's contract, its link to the one skill written from the package's drawer.
        assert index == root_index.replace("](../../skills/", "](../../../../../.agents/skills/")
        assert (
            host / WEB_MEMORY / drawer / "../../../../../.agents/skills/eco-mem/SKILL.md"
        ).is_file()
    assert list(host.rglob("SKILL.md")) == [host / SKILL / "SKILL.md"]
    agents = (host / WEB / "AGENTS.md").read_bytes()
    assert agents.startswith(b"# Web\r\n\r\nUse pnpm.\r\n\r\n<!-- eco-mem:begin -->\r\n")
    assert b"`packages/web/.agents/memory/`" in agents and b"SKILL.md" in agents
    # The store is staged (stores are found from git's index), desks stay ignored.
    staged = git(host, "diff", "--cached", "--name-only").split()
    assert f"{WEB_MEMORY}/semantic/INDEX.md" in staged
    attributes = (host / ".gitattributes").read_text(encoding="utf-8")
    assert f"/{WEB_MEMORY}/semantic/INDEX.md merge=eco-mem-catalog" in attributes
    check = git(host, "check-attr", "merge", "--", f"{WEB_MEMORY}/episodic/INDEX.md")
    assert check.strip().endswith("merge: eco-mem-catalog")
    ok(mem_in(host, ".", "verify"))
    before = work_tree_bytes(host)
    again = ok(mem_in(host, WEB, "init", "."))
    assert "already in place" in again.stdout
    assert work_tree_bytes(host) == before


@pytest.mark.parametrize(
    "path",
    [".", "missing", "../outside", ".agents/skills/eco-mem", ".agents/memory/semantic", ".git"],
)
def test_init_refuses_a_folder_that_cannot_hold_a_store(
    pristine: Path, tmp_path: Path, path: str
) -> None:
    import shutil

    host = tmp_path / "host"
    shutil.copytree(pristine, host, symlinks=True)
    before = work_tree_bytes(host)
    refused = mem_in(host, ".", "init", path)
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert work_tree_bytes(host) == before


@pytest.mark.parametrize("target", ["../../.git/hooks", "../../.GIT/hooks", "../../.git"])
def test_init_through_a_link_into_git_makes_no_folder_there(
    pristine: Path, tmp_path: Path, target: str
) -> None:
    """secrev-2 finding 5: `init PATH` refused the store's first file (it led into .git)
    after it had made the store's folders there. Folders now meet the files' rule
    before any is made: inside the repository and under no `.git` folder, in any case."""
    import shutil

    host = tmp_path / "host"
    shutil.copytree(pristine, host, symlinks=True)
    (host / WEB / ".agents").symlink_to(target)
    commit_all(host, "a package whose .agents is a link into .git")
    git_before = sorted(os.path.relpath(p, host) for p in host.glob(".[gG][iI][tT]/**/*"))

    refused = mem_in(host, ".", "init", WEB)

    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    assert "leads into .git" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    git_after = sorted(os.path.relpath(p, host) for p in host.glob(".[gG][iI][tT]/**/*"))
    assert git_after == git_before and not (host / ".GIT").exists()


def test_new_in_a_package_writes_there_and_find_reads_it_first(host: Path) -> None:
    ok(fact_in(host, ".", "The monorepo builds with turbo and pnpm"))
    ok(fact_in(host, f"{WEB}/src", "Web bundles with vite and pnpm"))
    assert (host / WEB_MEMORY / "semantic/web-bundles-with-vite-and-pnpm.md").is_file()
    assert not (host / MEMORY / "semantic/web-bundles-with-vite-and-pnpm.md").exists()
    found = ok(mem_in(host, WEB, "find", "pnpm")).stdout.splitlines()
    assert found[0].startswith(f"[{WEB}] | .agents/memory/semantic/web-bundles-with-vite")
    assert found[1].startswith("[root] | ../../.agents/memory/semantic/the-monorepo-builds")
    for line in found:  # every printed path opens from the folder find ran in
        path = line.split(" | ")[1]
        assert (host / WEB / path).is_file(), path
    data = json.loads(ok(mem_in(host, WEB, "find", "pnpm", "--json")).stdout)
    assert data["stores"] == [WEB, "root"] and data["paths"] == "repository-relative"
    assert [row["store"] for row in data["rows"]] == [WEB, "root"]
    assert data["rows"][0]["path"] == f"{WEB_MEMORY}/semantic/web-bundles-with-vite-and-pnpm.md"
    # --store chooses on purpose, from anywhere.
    ok(fact_in(host, ".", "Docs deploy through pnpm run publish", "--store", DOCS))
    assert (host / DOCS / MEMORY / "semantic/docs-deploy-through-pnpm-run-publish.md").is_file()


def test_a_package_without_a_store_writes_to_the_root_and_siblings_stay_out(host: Path) -> None:
    ok(fact_in(host, WEB, "Web bundles with vite and pnpm"))
    ok(fact_in(host, API, "Api serves pnpm workspace packages"))
    assert (host / MEMORY / "semantic/api-serves-pnpm-workspace-packages.md").is_file()
    for folder in (API, "."):
        shown = ok(mem_in(host, folder, "find", "pnpm")).stdout
        assert "api-serves-pnpm" in shown and "web-bundles" not in shown
        assert "[" not in shown  # one store read: the rows look as they always did
    every = ok(mem_in(host, API, "find", "pnpm", "--all-stores")).stdout.splitlines()
    assert every[0].startswith("[root] | ../../.agents/memory/semantic/api-serves")
    assert every[1].startswith(f"[{WEB}] | ../web/.agents/memory/semantic/web-bundles")


def test_root_verify_and_review_report_defects_in_package_stores(host: Path) -> None:
    ok(fact_in(host, WEB, "Web bundles with vite and pnpm"))
    index = host / WEB_MEMORY / "semantic/INDEX.md"
    with index.open("a", encoding="utf-8") as handle:
        handle.write("| ghost | a row whose file is gone | 2026-01-01 | verified | ghost.md |\n")
    checked = mem_in(host, ".", "verify", "--json")
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    assert report["stores"] == [MEMORY, f"{DOCS}/{MEMORY}", WEB_MEMORY]
    rules = {(item["rule"], item["path"]) for item in report["findings"]}
    assert ("drift.row-without-file", f"{WEB_MEMORY}/semantic/INDEX.md") in rules
    staged = mem_in(host, ".", "verify", "--staged")
    assert staged.returncode == 1 and WEB_MEMORY in staged.stdout
    reviewed = json.loads(mem_in(host, ".", "review", "--json").stdout)
    uncited = [item for item in reviewed["findings"] if item["kind"] == "uncited"]
    assert uncited[0]["entries"] == [f"{WEB_MEMORY}/semantic/web-bundles-with-vite-and-pnpm.md"]
    assert uncited[0]["command"].endswith(f"--store {WEB}")


def test_caps_count_per_store(host: Path) -> None:
    cap = 40
    index = host / MEMORY / "semantic/INDEX.md"
    lines = [index.read_text(encoding="utf-8")]
    for number in range(cap):  # a full root catalog, written the way `new` writes it
        slug = f"root-fact-{number:02d}"
        (host / MEMORY / "semantic" / f"{slug}.md").write_text(
            f"# Root fact {number}\n\nas_of: 2026-01-01\nsource: user-confirmed\n"
            "scope: repo\nexpires: never\n\nSaid by the team.\n",
            encoding="utf-8",
        )
        lines.append(f"| {slug} | Root fact {number} | 2026-01-01 | user-confirmed | {slug}.md |\n")
    index.write_text("".join(lines), encoding="utf-8")
    ok(mem_in(host, ".", "verify"))
    refused = fact_in(host, ".", "One fact too many for the root")
    assert refused.returncode == 1 and "caps.catalog-rows" in refused.stderr
    ok(fact_in(host, WEB, "The web package still has room"))


def test_two_branches_adding_rows_to_one_package_catalog_merge(host: Path) -> None:
    driver = git(host, "config", "--get", "merge.eco-mem-catalog.driver")
    assert driver.strip()
    for branch, title in (("left", "Web uses vite alpha"), ("right", "Web uses vite beta")):
        git(host, "switch", "-q", "-c", branch, "main")
        ok(fact_in(host, WEB, title))
        commit_all(host, branch)
    git(host, "switch", "-q", "left")
    merged = subprocess.run(
        ["git", "merge", "--no-edit", "right"], cwd=host, capture_output=True, text=True
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = (host / WEB_MEMORY / "semantic/INDEX.md").read_text(encoding="utf-8")
    assert "<<<<<<<" not in text
    assert "web-uses-vite-alpha.md" in text and "web-uses-vite-beta.md" in text
    ok(mem_in(host, ".", "verify"))


def test_package_desks_stay_out_of_git_and_context_lists_them_closest_first(host: Path) -> None:
    ok(mem_in(host, ".", "new", "working", "--title", "Root chore", "--goal", "tidy the root"))
    ok(mem_in(host, WEB, "new", "working", "--title", "Fix web build", "--goal", "green build"))
    assert (host / WEB_MEMORY / "working/fix-web-build.md").is_file()
    assert git(host, "status", "--porcelain") == ""  # both desks ignored
    found = ok(mem_in(host, WEB, "find")).stdout.splitlines()
    assert found[0].startswith(f"[{WEB}] | .agents/memory/working/fix-web-build.md")
    assert found[1].startswith("[root] | ../../.agents/memory/working/root-chore.md")
    context = ok(mem_in(host, WEB, "context")).stdout
    assert context.index("Fix web build") < context.index("Root chore")
    relayed = mem_in(
        host,
        WEB,
        *(
            "end-task",
            "fix-web-build",
            "--promote-to",
            "semantic",
            "--title",
            "Web build needs node 20",
        ),
        *("--source", "verified", "--scope", "repo", "--expires", "never", "--body", "Checked."),
    )
    ok(relayed)
    assert (host / WEB_MEMORY / "semantic/web-build-needs-node-20.md").is_file()
    assert not (host / WEB_MEMORY / "working/fix-web-build.md").exists()


def test_blocks_refreshes_package_contracts_and_keeps_rows(host: Path) -> None:
    ok(fact_in(host, WEB, "Web bundles with vite and pnpm"))
    index = host / WEB_MEMORY / "semantic/INDEX.md"
    fresh = index.read_text(encoding="utf-8")
    rows = fresh[fresh.index("|---") :]
    index.write_text(fresh.replace("Confirmed facts", "Old wording of the facts"), encoding="utf-8")
    ok(run_ops(host, "blocks"))
    assert index.read_text(encoding="utf-8") == fresh
    assert index.read_text(encoding="utf-8").endswith(rows)
    before = work_tree_bytes(host)
    ok(run_ops(host, "blocks"))
    assert work_tree_bytes(host) == before
    episodic = host / WEB_MEMORY / "episodic/INDEX.md"
    episodic.unlink()  # a drawer without its INDEX is broken: blocks puts it back
    ok(run_ops(host, "blocks"))
    assert work_tree_bytes(host) == before


def test_uninstall_takes_package_blocks_out_and_keeps_their_memory(host: Path) -> None:
    ok(fact_in(host, WEB, "Web bundles with vite and pnpm"))
    commit_all(host, "a fact")
    ok(run_ops(host, "uninstall"))
    assert (host / WEB / "AGENTS.md").read_bytes() == b"# Web\r\n\r\nUse pnpm.\r\n"
    assert not (host / DOCS / "AGENTS.md").exists()  # it held only our block
    assert (host / WEB_MEMORY / "semantic/web-bundles-with-vite-and-pnpm.md").is_file()
    assert not (host / WEB_MEMORY / ".ignore").exists()


def test_uninstall_memory_removes_package_stores_too(host: Path) -> None:
    ok(run_ops(host, "uninstall", "--memory"))
    assert not (host / WEB_MEMORY).exists() and not (host / DOCS / MEMORY).exists()
    assert (host / WEB / "src/index.ts").is_file()


def test_a_citation_into_a_package_store_is_memory_citing_itself(host: Path) -> None:
    ok(fact_in(host, WEB, "Web bundles with vite and pnpm"))
    cited = fact_in(
        host,
        ".",
        "Root cites the web store",
        "--cite",
        f'{WEB_MEMORY}/semantic/web-bundles-with-vite-and-pnpm.md "vite"',
    )
    assert cited.returncode in (1, 2) and "memory" in cited.stderr, cited.stderr
    assert os.path.exists(host / WEB_MEMORY / "semantic/INDEX.md")


def test_init_with_malformed_markers_in_the_package_agents_md_writes_nothing(
    pristine: Path, tmp_path: Path
) -> None:
    import shutil

    host = tmp_path / "host"
    shutil.copytree(pristine, host, symlinks=True)
    (host / API / "AGENTS.md").write_text("# Api\n<!-- eco-mem:begin -->\n", encoding="utf-8")
    before = work_tree_bytes(host)
    refused = mem_in(host, ".", "init", API)
    assert refused.returncode == 2 and "packages/api/AGENTS.md:2" in refused.stderr
    assert work_tree_bytes(host) == before


def test_the_root_block_says_packages_have_stores_once_one_does(
    pristine: Path, installed: Path
) -> None:
    assert "Packages with" not in (pristine / "AGENTS.md").read_text(encoding="utf-8")
    root_block = (installed / "AGENTS.md").read_text(encoding="utf-8")
    assert "Packages with a `.agents/memory/` of their own" in root_block


def test_copier_update_refreshes_every_package_contract_and_keeps_rows(tmp_path: Path) -> None:
    from tests.helpers import replace_in, snapshot_template, update_project

    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    host = init_repo(tmp_path / "host")
    (host / WEB).mkdir(parents=True)
    copy_template(template, host, vcs_ref="v0.0.1")
    commit_all(host, "install")
    ok(mem_in(host, ".", "init", WEB))
    ok(fact_in(host, WEB, "Web bundles with vite"))
    commit_all(host, "a package store with a fact")
    index = host / WEB_MEMORY / "semantic/INDEX.md"
    rows = index.read_text(encoding="utf-8").split("|---|---|---|---|---|\n", 1)[1]

    def reword(repo: Path) -> None:
        replace_in(
            repo / RUNTIME_CONTRACTS,
            "Confirmed facts",
            "Checked facts",
        )

    snapshot_template(template, tag="v0.0.2", mutate=reword)
    update_project(host, vcs_ref="v0.0.2")
    text = index.read_text(encoding="utf-8")
    assert "Checked facts" in text and "Confirmed facts" not in text
    assert text.split("|---|---|---|---|---|\n", 1)[1] == rows
    assert "Checked facts" in (host / MEMORY / "semantic/INDEX.md").read_text(encoding="utf-8")


def test_a_root_fact_scoped_to_a_package_ranks_first_there(host: Path) -> None:
    ok(fact_in(host, ".", "Deploys go through the pnpm release script"))
    ok(
        mem_in(
            host,
            ".",
            *("new", "semantic", "--title", "Api deploys need the pnpm api token step"),
            *("--source", "derived", "--scope", "packages/api/**", "--expires", "never"),
            *("--body", "Read in the deploy workflow."),
        )
    )
    shown = ok(mem_in(host, API, "find", "release", "deploys", "pnpm")).stdout.splitlines()
    assert "api-deploys-need" in shown[0]
    at_root = ok(mem_in(host, ".", "find", "release", "deploys", "pnpm")).stdout.splitlines()
    assert "deploys-go-through" in at_root[0]  # elsewhere: the most words first


def test_verify_staged_sees_a_rewritten_episode_in_a_package_store(host: Path) -> None:
    ok(
        mem_in(
            host,
            WEB,
            *("new", "episodic", "--title", "Vite build ran out of memory"),
            *("--context", "CI run 812", "--action", "raised the heap limit"),
            *("--result", "the build passed", "--lesson", "Set NODE_OPTIONS for vite builds."),
        )
    )
    commit_all(host, "an episode")
    [episode] = (host / WEB_MEMORY / "episodic").glob("*-vite-build-ran-out-of-memory.md")
    text = episode.read_text(encoding="utf-8")
    episode.write_text(
        text.replace("raised the heap limit", "rewrote the whole bundler config from scratch"),
        encoding="utf-8",
    )
    git(host, "add", "-A")
    staged = mem_in(host, ".", "verify", "--staged", "--json")
    rules = {(item["rule"], item["path"]) for item in json.loads(staged.stdout)["findings"]}
    assert ("episodic.rewritten", episode.relative_to(host).as_posix()) in rules


def test_resolve_finishes_a_package_catalog_that_git_merged_as_text(host: Path) -> None:
    for branch, title in (("left", "Web uses vite alpha"), ("right", "Web uses vite beta")):
        git(host, "switch", "-q", "-c", branch, "main")
        ok(fact_in(host, WEB, title))
        commit_all(host, branch)
    git(host, "switch", "-q", "left")
    git(host, "config", "--remove-section", "merge.eco-mem-catalog")  # a clone without it
    merged = subprocess.run(["git", "merge", "--no-edit", "right"], cwd=host, capture_output=True)
    assert merged.returncode == 1  # git's text merge: both rows at one place
    done = ok(mem_in(host, WEB, "resolve"))
    assert f"{WEB_MEMORY}/semantic/INDEX.md" in done.stdout
    text = (host / WEB_MEMORY / "semantic/INDEX.md").read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and "vite-alpha.md" in text and "vite-beta.md" in text


def stores_verify_sees(host: Path, env: dict | None = None) -> list[str]:
    checked = subprocess.run(
        [sys.executable, str(host / SCRIPT), "verify", "--json"],
        cwd=host,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in checked.stderr
    return json.loads(checked.stdout)["stores"]


def test_a_repository_without_package_stores_has_only_the_root_store(pristine: Path) -> None:
    # verify reads git's index file for `/<memory_dir>/` before it asks git to list package
    # stores (store/stores.py): here none is there, and git is never asked.
    assert stores_verify_sees(pristine) == [MEMORY]


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param(("update-index", "--index-version", "4"), id="index-v4-compressed-paths"),
        pytest.param(("update-index", "--split-index"), id="split-index"),
        pytest.param(("sparse-checkout", "set", "--no-cone", "/*"), id="sparse-checkout"),
    ],
)
def test_package_stores_are_found_in_every_index_layout(host: Path, layout: tuple) -> None:
    # Layouts where a path need not stand whole in .git/index: git is asked, as before.
    git(host, *layout)
    assert stores_verify_sees(host) == [MEMORY, f"{DOCS}/{MEMORY}", WEB_MEMORY]


def test_package_stores_are_found_in_the_index_git_index_file_names(host: Path) -> None:
    # A hook run by `git commit -a` or `git commit PATH` sees a temporary index through
    # GIT_INDEX_FILE; .git/index itself may not hold the package stores then.
    (host / ".git/other-index").write_bytes((host / ".git/index").read_bytes())
    git(host, "rm", "-r", "--cached", "--quiet", "packages")
    assert stores_verify_sees(host) == [MEMORY]
    env = {**os.environ, "GIT_INDEX_FILE": str(host / ".git/other-index")}
    assert stores_verify_sees(host, env) == [MEMORY, f"{DOCS}/{MEMORY}", WEB_MEMORY]


def test_init_then_commit_leaves_nothing_behind(pristine: Path, tmp_path: Path) -> None:
    import shutil

    host = tmp_path / "host"
    shutil.copytree(pristine, host, symlinks=True)
    (host / "AGENTS.md").write_text(
        (host / "AGENTS.md").read_text(encoding="utf-8") + "\nA note of the team's.\n",
        encoding="utf-8",
    )
    (host / "packages" / "api").mkdir(parents=True, exist_ok=True)

    done = ok(mem_in(host, ".", "init", "packages/api"))

    # Everything init wrote is staged, but for a file that held the team's own edits.
    assert "beside edits of yours" in done.stdout and "AGENTS.md" in done.stdout
    git(host, "commit", "-qm", "memory: a store for packages/api")
    left = git(host, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert left == [" M AGENTS.md"], left
