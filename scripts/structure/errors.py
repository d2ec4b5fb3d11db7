"""The error rule: library code returns typed errors, never `Result<_, String>` or
`Box<dyn Error>`; a caller can then match on what went wrong, and each transport maps the kinds
to its statuses in one place.

Library code is every module of `ragdownd`, `embedd` and `proto` but their binaries (`main.rs`,
`bin/`) and tests; `bench/` is a harness of binaries and is not held to it.
"""

from __future__ import annotations

import re

from rust import Module, line_of

RESULT = re.compile(r"\bResult\s*<")
BOX_DYN_ERROR = re.compile(r"\bBox\s*<\s*dyn\s+(?:(?:std|core)\s*::\s*error\s*::\s*)?Error\b")


def generic_args(code: str, open_at: int) -> list[str]:
    """The top-level arguments of the `<...>` opening at `open_at` (`->` arrows and `=>` are not
    brackets)."""
    depth, i, start, args = 0, open_at, open_at + 1, []
    while i < len(code):
        c = code[i]
        if c in "<([":
            depth += 1
        elif c == ">" and code[i - 1] not in "-=":
            depth -= 1
            if depth == 0:
                args.append(code[start:i])
                return [a.strip() for a in args if a.strip()]
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 1:
            args.append(code[start:i])
            start = i + 1
        elif c in ";{" and depth <= 1:
            return []
        i += 1
    return []


def check(modules: dict[tuple[str, ...], Module]) -> list[str]:
    errors = []
    for module in modules.values():
        if module.is_test:
            continue
        code = module.code
        for m in RESULT.finditer(code):
            args = generic_args(code, m.end() - 1)
            if len(args) == 2 and re.fullmatch(r"(?:std\s*::\s*string\s*::\s*)?String", args[1]):
                errors.append(f"{module.path}:{line_of(code, m.start())}: errors: Result<_, String> in library "
                              "code; return a thiserror enum the caller can match on")
        for m in BOX_DYN_ERROR.finditer(code):
            errors.append(f"{module.path}:{line_of(code, m.start())}: errors: Box<dyn Error> in library code; "
                          "name the error type (a thiserror enum or the library's own)")
    return errors
