"""False positives of the secret and personal-data rules on real documentation.

Runs the rules verify applies to entry text (ecomem.secret_shapes and ecomem.personal_data,
straight from template/, so no render is needed) over every `*.md` file under DIR and
prints each finding as `path:line: rule`, then the count per rule and the rate per 1,000
files. Documentation quotes credential-shaped examples on purpose, so every finding still
needs a look: the target is at most 1 per 1,000 files that is not such an example.

Fill DIR with the markdown of public, documentation-heavy repositories, outside this
repository (the corpus is never committed). From the repository root:

    python -m benchmarks.secrets_fp /tmp/fp-corpus [--show]

--show adds the first 100 characters of each flagged line, for review.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "runtime"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, help="folder searched for *.md files")
    parser.add_argument("--show", action="store_true", help="print each flagged line's start")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a directory")

    sys.path.insert(0, str(SCRIPTS))
    from ecomem.rules import personal_data, secret_shapes

    files = sorted(args.corpus.rglob("*.md"))
    rules = Counter()
    flagged_files = set()
    started = time.perf_counter()
    for path in files:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        relpath = path.relative_to(args.corpus).as_posix()
        for scan in (secret_shapes.scan, personal_data.scan):
            for finding in scan(relpath, lines):
                rules[finding.rule] += 1
                flagged_files.add(relpath)
                shown = f"  {lines[finding.line - 1].strip()[:100]}" if args.show else ""
                print(f"{relpath}:{finding.line}: {finding.rule}{shown}")
    elapsed = time.perf_counter() - started

    total = sum(rules.values())
    per_thousand = total / len(files) * 1000 if files else 0.0
    print()
    for rule, count in sorted(rules.items()):
        print(f"{count:6d}  {rule}")
    print(
        f"{len(files)} files, {total} findings in {len(flagged_files)} files:"
        f" {per_thousand:.2f} per 1,000 files ({elapsed:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
