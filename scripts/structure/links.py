"""The documentation rules: the README stays short enough to read (at most 15,000 bytes), every
page under docs/ is reachable from it, and no Markdown link in the repository points at a file
that is not there.

Links are `[text](target)` and `[text]: target` outside code fences and code spans; a target
with a scheme (`https:`, `mailto:`) or only an anchor is not a file and is not checked.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

README_LIMIT = 15_000
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text: str):
    """(line number, line with code spans blanked) for each line outside code fences."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            fence = None if fence == m.group(1) else (fence or m.group(1))
            continue
        if fence is None:
            yield number, re.sub(r"`[^`]*`", lambda s: " " * len(s.group(0)), line)


def links(text: str):
    """(line number, target) of every link in a Markdown text."""
    for number, line in prose_lines(text):
        for m in INLINE.finditer(line):
            yield number, m.group(1)
        for m in REFERENCE.finditer(line):
            yield number, m.group(1)


def file_of(page: Path, target: str, root: Path) -> Path | None:
    """The file a link points at, or None when it is not a link to a file."""
    if SCHEME.match(target) or target.startswith("#"):
        return None
    path = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not path:
        return None
    base = root if path.startswith("/") else page.parent
    return (base / path.lstrip("/")).resolve()


def check_readme_size(root: Path) -> list[str]:
    size = len((root / "README.md").read_bytes())
    if size > README_LIMIT:
        return [f"README.md:1: docs: {size} bytes, over {README_LIMIT}; move detail to a page under docs/"]
    return []


def check(root: Path, tracked: list[Path]) -> list[str]:
    errors = []
    linked_from_readme = set()
    for page in (p for p in tracked if p.suffix == ".md"):
        text = (root / page).read_text(encoding="utf-8", errors="replace")
        for number, target in links(text):
            file = file_of(root / page, target, root)
            if file is None:
                continue
            if not file.exists():
                errors.append(f"{page}:{number}: links: {target} points at a file that does not exist")
            elif page == Path("README.md"):
                linked_from_readme.add(file)
    for page in sorted(p for p in tracked if p.parts[0] == "docs" and p.suffix == ".md"):
        if (root / page).resolve() not in linked_from_readme:
            errors.append(f"{page}:1: docs: not linked from README.md; link it there or fold it into a page that is")
    return errors
