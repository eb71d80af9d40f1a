#!/usr/bin/env python3
"""Lists the import circles among the files and the folders of src/.

A file imports another when it names it in a `use` path (`crate::a::b`,
`super::b`, `self::b`) or in a qualified path in its code. Two graphs are
checked:

- files: a circle is a strongly connected component of the file graph with
  more than one file;
- folders: for every folder, its entries (its files and its sub-folders,
  each sub-folder standing for every file below it) import each other when
  some file below one imports some file below the other. A folder's own
  `mod.rs` is not an entry of it: it declares the folder and may name what
  is inside, and what is inside may name it. A circle among the entries of
  one folder (say `passes/` and `printer/` of `src/`) is an arrow against
  the pipeline even when no two files form one.

A third check holds the layering: ARCHITECTURE.md says, for each module
at the top of src/, which others it "May import" (or that it imports
nothing of lazysma); a file that names a module its own may not import is
an arrow against the pipeline, and so is a top module without a rule.

Usage: import-cycles.py [SRC]      (SRC defaults to the repository's src/)
       import-cycles.py --self-test
Exit 0 when there is no circle and no forbidden import, 1 otherwise.
"""
import re
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src"
ARCHITECTURE = SOURCE.parent / "ARCHITECTURE.md"
PATH = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def module_of(root: Path, path: Path) -> list[str]:
    parts = list(path.relative_to(root).with_suffix("").parts)
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


def paths_named(text: str) -> list[str]:
    """The `crate::`/`super::`/`self::` paths a file's code names, outside
    comments and its unit tests, with `use a::{b, c::d}` expanded one level."""
    text = re.sub(r"//[^\n]*", "", text)
    text = text.split("#[cfg(test)]")[0]
    for match in re.finditer(r"use\s+([^;]+);", text):
        body = match.group(1).replace("\n", " ")
        brace = re.match(r"([\w:]+)::\{(.*)\}\s*$", body)
        paths = [body]
        if brace:
            prefix = brace.group(1)
            paths = [prefix + "::" + item.strip() for item in brace.group(2).split(",")]
        for p in paths:
            text += "\n" + p.strip()
    return [match.group(1) for match in PATH.finditer(text)]


def resolve(module: list[str], named: str) -> list[str]:
    """The module path below the crate root that `named` (a `crate::`,
    `super::` or `self::` path) names from inside `module`."""
    segments = named.split("::")
    if segments[0] == "crate":
        return segments[1:]
    here = module
    if segments[0] == "self":
        segments = segments[1:]
    while segments and segments[0] == "super":
        here = here[:-1]
        segments = segments[1:]
    return here + segments


def file_graph(root: Path) -> dict[str, set[str]]:
    """{file: files it imports}, files named by their path below `root`."""
    files = {}
    for path in sorted(root.rglob("*.rs")):
        files.setdefault(tuple(module_of(root, path)), str(path.relative_to(root)))
    edges = {name: set() for name in files.values()}
    for key, name in files.items():
        base = list(key)
        for named in paths_named((root / name).read_text()):
            target = resolve(base, named)
            other = file_of(target, files)
            if other and other != name:
                edges[name].add(other)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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
    return out


def entry_of(folder: Path, file: Path) -> str | None:
    """The entry of `folder` that holds `file` (a file or a sub-folder, with
    a trailing slash), or None for the folder's own mod.rs/lib.rs/main.rs
    and for files outside it."""
    try:
        parts = file.relative_to(folder).parts
    except ValueError:
        return None
    if len(parts) == 1:
        return None if parts[0] in ("mod.rs", "lib.rs", "main.rs") else parts[0]
    return parts[0] + "/"


def folder_circles(edges: dict[str, set[str]]) -> list[tuple[str, list[str]]]:
    """(folder, entries) for every circle among the entries of one folder."""
    folders = {Path(name).parent for name in edges}
    out = []
    for folder in sorted(folders):
        entries: dict[str, set[str]] = {}
        for name, targets in edges.items():
            source = entry_of(folder, Path(name))
            if source is None:
                continue
            entries.setdefault(source, set())
            for target in targets:
                other = entry_of(folder, Path(target))
                if other is not None and other != source:
                    entries[source].add(other)
                    entries.setdefault(other, set())
        for component in circles(entries):
            out.append((str(folder), component))
    return out


def layering_rules(text: str) -> dict[str, set[str] | None]:
    """{top module: the modules (or `module::item` paths) it may import},
    from the `### ` sections of ARCHITECTURE.md's code map that name
    `src/<module>/` or `src/<module>.rs`; None for a section that states
    no rule (`lib.rs`)."""
    rules: dict[str, set[str] | None] = {}
    for section in re.split(r"^### ", text, flags=re.M)[1:]:
        heading, _, body = section.partition("\n")
        modules = re.findall(r"`src/(\w+)(?:/|\.rs)`", heading)
        body = " ".join(body.split())
        allowed: set[str] | None = None
        if re.search(r"[Ii]mport(?:s|ing) nothing of lazysma", body):
            allowed = set()
        rule = re.search(r"May import (.*?)\.(?:\s|$)", body)
        if rule:
            listed = rule.group(1)
            every = re.match(r"every stage \((.*)\)", listed)
            # names in parentheses are the items of a module, not modules
            listed = every.group(1) if every else re.sub(r"\([^)]*\)", "", listed)
            allowed = set(re.findall(r"`([\w:]+)`", listed))
        for module in modules:
            rules[module] = allowed
    return rules


def layering_violations(root: Path, rules: dict[str, set[str] | None]) -> list[str]:
    """Every import of a top module against `rules`: `file names crate::x`."""
    tops = {module_of(root, path)[0] for path in root.rglob("*.rs") if module_of(root, path)}
    out: list[str] = []
    for top in sorted(tops):
        if top not in rules:
            out.append(f"src/{top}: ARCHITECTURE.md gives it no \"May import\" rule")
    for path in sorted(root.rglob("*.rs")):
        module = module_of(root, path)
        if not module or rules.get(module[0]) is None:
            continue
        own, allowed = module[0], rules[module[0]]
        for named in sorted(set(paths_named(path.read_text()))):
            target = resolve(module, named)
            if not target or target[0] == own or target[0] not in tops:
                continue
            if target[0] in allowed or "::".join(target[:2]) in allowed:
                continue
            violation = (f"{path.relative_to(root)} imports `{target[0]}`, "
                         f"which `{own}` may not (ARCHITECTURE.md)")
            if violation not in out:
                out.append(violation)
    return out


def report(root: Path) -> int:
    edges = file_graph(root)
    found = 0
    if root == SOURCE and ARCHITECTURE.exists():
        for violation in layering_violations(root, layering_rules(ARCHITECTURE.read_text())):
            found += 1
            print(f"against the pipeline: {violation}")
    for component in circles(edges):
        found += 1
        print(f"circle of {len(component)} files: " + ", ".join(component))
    for folder, component in folder_circles(edges):
        found += 1
        where = "src/" if folder == "." else f"src/{folder}/"
        print(f"circle among the entries of {where}: " + ", ".join(component))
    if not found:
        print("no import circle among the files or folders of src/, no import against the pipeline")
    return 1 if found else 0


def self_test() -> int:
    """The script must see a circle between two files, and one between two
    folders whose files form none, and nothing in a tree without one."""
    cases = {
        "two files": ({"lib.rs": "mod a; mod b;",
                       "a.rs": "use crate::b::f;", "b.rs": "use crate::a::g;"}, 1),
        "two folders": ({"lib.rs": "mod p; mod q;",
                         "p/mod.rs": "mod one; mod two;", "p/one.rs": "use crate::q::two::X;",
                         "p/two.rs": "",
                         "q/mod.rs": "mod one; mod two;", "q/one.rs": "use crate::p::two::Y;",
                         "q/two.rs": ""}, 1),
        "a pipeline": ({"lib.rs": "mod p; mod q;",
                        "p/mod.rs": "pub use self::one::X; mod one;", "p/one.rs": "",
                        "q/mod.rs": "mod one;", "q/one.rs": "use crate::p::X;"}, 0),
    }
    failed = 0
    for name, (tree, expected) in cases.items():
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            for path, text in tree.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            edges = file_graph(root)
            found = len(circles(edges)) + len(folder_circles(edges))
        verdict = "ok" if (found > 0) == (expected > 0) else "FAILED"
        failed += verdict == "FAILED"
        print(f"self-test {name}: {found} circle(s), {verdict}")
    document = ("### `src/ir/`\nThe IR. May import `options` (`MemoryModel`).\n"
                "### `src/options.rs`\nOptions. Imports nothing of lazysma.\n"
                "### `src/passes/`\nPasses. May import `ir`, `options`.\n")
    layered = {"lib.rs": "mod ir; mod options; mod passes;", "ir/mod.rs": "use crate::options::X;",
               "options.rs": "", "passes/mod.rs": "use crate::ir::Y; use super::options::Z;"}
    for name, (planted, expected) in {
        "layering kept": ({}, 0),
        "a planted back-arrow": ({"ir/mod.rs": "use crate::passes::P;"}, 1),
        "a module without a rule": ({"lib.rs": "mod ir; mod options; mod passes; mod extra;",
                                     "extra.rs": ""}, 1),
    }.items():
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            for path, text in {**layered, **planted}.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            found = len(layering_violations(root, layering_rules(document)))
        verdict = "ok" if (found > 0) == (expected > 0) else "FAILED"
        failed += verdict == "FAILED"
        print(f"self-test {name}: {found} import(s) against the pipeline, {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(report(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE))
