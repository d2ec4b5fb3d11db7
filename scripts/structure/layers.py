"""The import rules for the Rust crates: every module of a crate's top level sits on a layer
written in docs/architecture.md ("Layers"), and may import only modules on lower layers, so the
crate's top level has no circle; inside a folder, the files beside each other import one another
without a circle (the folder's `mod.rs`, which declares them and hands their names on, aside).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import rust

HEADING = re.compile(r"^#{2,4}\s+Layers of `([^`]+)`")
ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")


def documented_layers(doc: Path) -> dict[str, dict[str, int]]:
    """{crate source folder: {top-level module: layer}} from the doc's "Layers of `X`" tables."""
    layers: dict[str, dict[str, int]] = {}
    current = None
    for line in doc.read_text(encoding="utf-8").split("\n"):
        if m := HEADING.match(line):
            current = layers.setdefault(m.group(1).rstrip("/"), {})
        elif line.startswith("#"):
            current = None
        elif current is not None and (m := ROW.match(line)):
            for name in re.findall(r"`([^`]+)`", m.group(2)):
                current[name] = int(m.group(1))
    return layers


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan), each as a sorted list."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def check(root: Path, doc: Path) -> list[str]:
    errors = []
    layers = documented_layers(doc)
    if not layers:
        return [f"{doc.relative_to(root)}:1: layers: no \"Layers of `crate/src`\" table found"]
    for crate, layer_of in sorted(layers.items()):
        modules = rust.load_crate(root / crate)
        for segments, module in sorted(modules.items()):
            if len(segments) >= 1 and not module.is_test and segments[0] not in layer_of:
                if len(segments) == 1 or modules.get(segments[:1]) is None:
                    errors.append(f"{module.path.relative_to(root)}:1: layers: module `{segments[0]}` has no "
                                  f"layer in {doc.relative_to(root)}")
        siblings: dict[tuple[str, ...], dict[str, dict[str, tuple[Path, int]]]] = defaultdict(lambda: defaultdict(dict))
        seen = set()
        for source, target, path, line in rust.edges(modules):
            rel = path.relative_to(root)
            if not source or not target:
                continue
            a, b = source[0], target[0]
            if a != b and a in layer_of and b in layer_of and layer_of[b] >= layer_of[a] and (rel, a, b) not in seen:
                seen.add((rel, a, b))
                errors.append(f"{rel}:{line}: layers: `{a}` (layer {layer_of[a]}) imports `{b}` (layer "
                              f"{layer_of[b]}); a module may import only from lower layers")
            # Files beside each other in one folder (not the folder's own mod.rs).
            parent = source[:-1]
            if len(source) == len(target) and target[:-1] == parent and source != target:
                siblings[parent][source[-1]].setdefault(target[-1], (rel, line))
        for parent, graph in sorted(siblings.items()):
            for part in circles({k: set(v) for k, v in graph.items()}):
                a, b = part[0], next(w for w in graph[part[0]] if w in part)
                rel, line = graph[a][b]
                folder = "/".join((crate,) + parent)
                errors.append(f"{rel}:{line}: layers: import circle among {folder}/{{{', '.join(part)}}}.rs")
        top = defaultdict(set)
        for source, target, *_ in rust.edges(modules):
            if source and target and source[0] != target[0]:
                top[source[0]].add(target[0])
        for part in circles(top):
            errors.append(f"{crate}/lib.rs:1: layers: import circle among top-level modules {', '.join(part)}")
    return errors
