#!/usr/bin/env python3
"""Lists the import circles between the source files of src/.

A file imports another when it names it in a `use` path (`crate::a::b`,
`super::b`, `self::b`) or in a qualified path in its code. The circles are
the strongly connected components of that graph with more than one file.
Exit 0 when there is none, 1 otherwise.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"


def module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def file_of(module: list[str], files: dict) -> str | None:
    # The longest prefix of the path that names a file.
    for n in range(len(module), 0, -1):
        key = tuple(module[:n])
        if key in files:
            return files[key]
    return None


PATH = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def main() -> int:
    files = {}
    for path in ROOT.rglob("*.rs"):
        files.setdefault(tuple(module_of(path)), str(path.relative_to(ROOT)))
    edges = {name: set() for name in files.values()}
    for key, name in files.items():
        text = (ROOT / name).read_text()
        text = re.sub(r"//[^\n]*", "", text)
        text = text.split("#[cfg(test)]")[0]
        # Expand `use a::{b, c::d}` one level deep.
        for match in re.finditer(r"use\s+([^;]+);", text):
            body = match.group(1).replace("\n", " ")
            brace = re.match(r"([\w:]+)::\{(.*)\}\s*$", body)
            paths = [body]
            if brace:
                prefix = brace.group(1)
                paths = [prefix + "::" + item.strip() for item in brace.group(2).split(",")]
            for p in paths:
                text += "\n" + p.strip()
        base = list(key)
        for match in PATH.finditer(text):
            segments = match.group(1).split("::")
            if segments[0] == "crate":
                target = segments[1:]
            else:
                here = base
                if segments[0] == "self":
                    segments = segments[1:]
                while segments and segments[0] == "super":
                    here = here[:-1]
                    segments = segments[1:]
                target = here + segments
            other = file_of(target, files)
            if other and other != name:
                edges[name].add(other)
    # Tarjan's strongly connected components.
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for component in out:
        print(f"circle of {len(component)} files: " + ", ".join(component))
    if not out:
        print("no import circle among the files of src/")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
