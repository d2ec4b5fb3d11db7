"""Rust sources read just far enough for the structure rules: comments, strings and test-only
items removed, the module tree taken from the files, and the paths each file names.

This is not a Rust parser. It knows what the rules need: which module of the crate a `crate::`,
`super::` or `self::` path lands in, where `#[cfg(test)]` items start and end, and where a type
such as `Result<T, String>` is written. Code it cannot read (a macro building paths from
strings, say) is simply not seen, so a rule can only miss an edge, never invent one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def blank_comments_and_strings(text: str) -> str:
    """The text with every comment, string and char literal replaced by spaces (newlines kept),
    so offsets and line numbers stay those of the file."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(text, i)) and (i == 0 or not _ident_char(text[i - 1])):
            close = '"' + m.group(1)
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            blank(i, end)
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}'), not a lifetime ('a, 'static).
            m = re.compile(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'").match(text, i)
            if m:
                blank(i, m.end())
                i = m.end()
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def _ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def item_end(code: str, start: int) -> int:
    """Where the item starting at `start` ends: after its first `;` at depth 0, or after the
    `{ ... }` block that comes first."""
    depth, i, n = 0, start, len(code)
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{":
            level, j = 1, i + 1
            while j < n and level:
                if code[j] == "{":
                    level += 1
                elif code[j] == "}":
                    level -= 1
                j += 1
            return j
        i += 1
    return n


CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")


def test_items(code: str) -> list[tuple[int, int, str | None]]:
    """The `#[cfg(test)]` items of a file: (start, end, name of a `mod name;` it declares)."""
    items = []
    for m in CFG_TEST.finditer(code):
        start = m.start()
        end = item_end(code, m.end())
        decl = re.compile(rf"\s*(?:#\s*\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+({IDENT})\s*;").match(code, m.end())
        items.append((start, end, decl.group(1) if decl else None))
    return items


def without_tests(code: str) -> str:
    """The code with its `#[cfg(test)]` items blanked (newlines kept)."""
    out = list(code)
    for start, end, _ in test_items(code):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


@dataclass
class Module:
    """One file of a crate: its module path from the crate root, and its code without comments,
    strings or test items."""

    path: Path
    segments: tuple[str, ...]
    code: str
    is_test: bool = False
    test_children: set[str] = field(default_factory=set)


def module_segments(src: Path, file: Path) -> tuple[str, ...]:
    rel = file.relative_to(src).with_suffix("")
    parts = rel.parts
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def is_test_path(file: Path) -> bool:
    """Test files by name: `tests.rs`, `*_tests.rs`, `*_props.rs` (property tests) and anything
    under a `tests/` or `benches/` folder."""
    name = file.stem
    return (
        name == "tests"
        or name.endswith("_tests")
        or name.endswith("_props")
        or any(p in ("tests", "benches") for p in file.parts)
    )


def load_crate(src: Path) -> dict[tuple[str, ...], Module]:
    """Every library file of the crate rooted at `src` (main.rs and bin/ left out: they use the
    library as another crate does), keyed by module path; test-only modules marked."""
    modules: dict[tuple[str, ...], Module] = {}
    for file in sorted(src.rglob("*.rs")):
        rel = file.relative_to(src)
        if rel.parts[0] == "bin" or rel.as_posix() == "main.rs":
            continue
        raw = blank_comments_and_strings(file.read_text(encoding="utf-8"))
        module = Module(file, module_segments(src, file), without_tests(raw), is_test_path(file))
        module.test_children = {name for _, _, name in test_items(raw) if name}
        modules[module.segments] = module
    for segments, module in modules.items():
        parent = modules.get(segments[:-1])
        if parent and segments and segments[-1] in parent.test_children:
            module.is_test = True
    for segments, module in modules.items():
        if any(modules.get(segments[:k]) and modules[segments[:k]].is_test for k in range(1, len(segments))):
            module.is_test = True
    return modules


USE = re.compile(r"\buse\s+")
PATH = re.compile(rf"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:\s*::\s*{IDENT})+)")


def expand_use(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` → ["a::b", "a::c::d", "a::c::e"]."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        return [tree.removesuffix("::self")]
    head, _, rest = tree.partition("{")
    body = rest[: rest.rfind("}")]
    parts, depth, cur = [], 0, ""
    for c in body:
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += c == "{"
        depth -= c == "}"
        cur += c
    parts.append(cur)
    out = []
    for part in filter(None, parts):
        out += [head + sub if part != "self" else head.rstrip(":") for sub in expand_use(part)]
    return [path.removesuffix("::self") for path in out]


def named_paths(module: Module) -> list[tuple[int, list[str]]]:
    """(offset, segments from the crate root) for every `crate::`/`super::`/`self::` path the
    module's code names, in `use` trees and in expressions alike."""
    code, found = module.code, []
    for m in USE.finditer(code):
        end = item_end(code, m.end())
        for path in expand_use(code[m.end() : end].rstrip(";")):
            path = re.sub(r"\s+as\s+.*$", "", path).replace("::*", "")
            found.append((m.start(), path))
    for m in PATH.finditer(code):
        found.append((m.start(), re.sub(r"\s+", "", m.group(1))))
    resolved = []
    for offset, path in found:
        segments = [s for s in path.split("::") if s]
        absolute = _absolute(module.segments, segments)
        if absolute is not None:
            resolved.append((offset, absolute))
    return resolved


def _absolute(here: tuple[str, ...], segments: list[str]) -> list[str] | None:
    if not segments:
        return None
    if segments[0] == "crate":
        return segments[1:]
    base = list(here)
    if segments[0] not in ("super", "self"):
        return None
    while segments and segments[0] in ("super", "self"):
        if segments.pop(0) == "super":
            if not base:
                return None
            base.pop()
    return base + segments


def target_module(modules: dict[tuple[str, ...], Module], segments: list[str]) -> tuple[str, ...]:
    """The deepest module file a path lands in."""
    for k in range(len(segments), -1, -1):
        if tuple(segments[:k]) in modules:
            return tuple(segments[:k])
    return ()


def edges(modules: dict[tuple[str, ...], Module]):
    """(from module, to module, file, line) for every path a non-test module names."""
    for segments, module in modules.items():
        if module.is_test:
            continue
        for offset, path in named_paths(module):
            target = target_module(modules, path)
            if target != segments:
                yield segments, target, module.path, line_of(module.code, offset)
