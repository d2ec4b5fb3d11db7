"""The size rule: no hand-written source file over 600 lines of code.

tokei counts the lines of code (not blank, not comment). Which files are hand-written source is a
rule, not a list: a tracked file with a source extension that is neither a test nor generated.
- A test is a file under a `tests/`, `e2e/` or `benches/` folder, or named `tests.rs`, `*_tests.rs`,
  `*_props.rs`, `*.test.ts(x)`, `*.spec.ts(x)` or `testing.ts`; in Rust, the `#[cfg(test)]` items
  of any other file are cut before counting.
- A generated file says so in its first five lines ("generated", "@generated", "do not edit").
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from rust import blank_comments_and_strings, test_items

LIMIT = 600
EXTENSIONS = {".rs", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".py", ".sh"}
TEST_DIRS = {"tests", "e2e", "benches"}
TEST_NAME = re.compile(r"(^tests\.rs$|_tests\.rs$|_props\.rs$|\.(test|spec)\.tsx?$|^testing\.ts$)")
GENERATED = re.compile(r"generated|do not edit", re.IGNORECASE)


def is_test(path: Path) -> bool:
    return bool(TEST_DIRS.intersection(path.parts[:-1])) or bool(TEST_NAME.search(path.name))


def is_generated(text: str) -> bool:
    return bool(GENERATED.search("\n".join(text.splitlines()[:5])))


def without_test_lines(text: str) -> str:
    """A Rust file's text without the lines of its `#[cfg(test)]` items. They are dropped, not
    emptied: tokei takes a char literal such as `'"'` for the start of a string, and would then
    count every empty line after it as code."""
    code = blank_comments_and_strings(text)
    lines = text.split("\n")
    dropped = set()
    for start, end, _ in test_items(code):
        dropped.update(range(code.count("\n", 0, start), code.count("\n", 0, end) + 1))
    return "\n".join(line for k, line in enumerate(lines) if k not in dropped)


def counted_files(root: Path, tracked: list[Path]) -> list[Path]:
    out = []
    for path in tracked:
        if path.suffix not in EXTENSIONS or is_test(path):
            continue
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        if not is_generated(text):
            out.append(path)
    return out


def check(root: Path, tracked: list[Path], tokei: str) -> list[str]:
    """`file:1: ...` for every counted file over the limit."""
    files = counted_files(root, tracked)
    with tempfile.TemporaryDirectory(prefix="ragdown-size.") as mirror:
        base = Path(mirror)
        for path in files:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".rs":
                text = without_test_lines(text)
            (base / path).parent.mkdir(parents=True, exist_ok=True)
            (base / path).write_text(text, encoding="utf-8")
        # --no-ignore: the mirror has no .gitignore of its own to honour, but tokei would read the
        # user's global one.
        out = subprocess.run(
            [tokei, "--output", "json", "--no-ignore", "--hidden", "."],
            cwd=base, check=True, capture_output=True, text=True,
        ).stdout
        shutil.rmtree(base / ".git", ignore_errors=True)
    report = json.loads(out)
    errors = []
    for language, stats in report.items():
        if language == "Total":
            continue
        for entry in stats.get("reports", []):
            code = entry["stats"]["code"]
            name = Path(entry["name"]).as_posix().removeprefix("./")
            if code > LIMIT:
                errors.append(f"{name}:1: size: {code} lines of code, over {LIMIT}; split it by meaning")
    return sorted(errors)
