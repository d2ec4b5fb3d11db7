"""The structure rules of docs/architecture.md ("Rules the test command keeps"), run over the
checkout: each broken rule is a `file:line: rule: why` line, and any makes the exit status 1.

    python3 scripts/structure [--tokei PATH] [--rules layers,errors,size,links,readme]

The web UI's import rules and its requests through `web/src/api/` are ESLint's and
dependency-cruiser's (web/), and the tools' golden file is a Rust test (ragdownd/tests/it).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import errors  # noqa: E402
import layers  # noqa: E402
import links  # noqa: E402
import rust  # noqa: E402
import size  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ["ragdownd/src", "embedd/src", "proto/src"]
RULES = ["layers", "errors", "size", "links", "readme"]


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, check=True, capture_output=True).stdout
    return [Path(p) for p in out.decode("utf-8").split("\0") if p and (ROOT / p).is_file()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokei", default=shutil.which("tokei"), help="the tokei binary")
    parser.add_argument("--rules", default=",".join(RULES), help="which rules, comma-separated (default: all)")
    args = parser.parse_args()
    rules = set(args.rules.split(","))
    if rules - set(RULES):
        parser.error(f"unknown rule(s): {', '.join(sorted(rules - set(RULES)))}; known: {', '.join(RULES)}")
    if "size" in rules and not args.tokei:
        print("structure: tokei not found (scripts/install-check-tools.sh installs it)", file=sys.stderr)
        return 2
    tracked = tracked_files()
    found = []
    if "layers" in rules:
        found += layers.check(ROOT, ROOT / "docs/architecture.md")
    if "errors" in rules:
        for crate in LIBRARIES:
            found += errors.check(rust.load_crate(ROOT / crate))
    if "size" in rules:
        found += size.check(ROOT, tracked, args.tokei)
    if "links" in rules:
        found += links.check(ROOT, tracked)
    if "readme" in rules:
        found += links.check_readme_size(ROOT)
    for line in found:
        print(line.replace(str(ROOT) + "/", ""))
    if found:
        print(f"structure: {len(found)} rule(s) broken; the rules and their reasons: docs/architecture.md", file=sys.stderr)
        return 1
    print(f"structure: every rule holds ({', '.join(r for r in RULES if r in rules)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
