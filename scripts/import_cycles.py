#!/usr/bin/env python3
"""Import circles, in Rust crates and Python packages: imports must run one way.

Rust (a directory with lib.rs or main.rs): `use` paths and qualified paths (`crate::a::B`,
`super::c::D`) resolved to the file that defines the item, re-exports (`pub use`) followed. A
module using its parent's (or any ancestor's) items is the way Rust nests modules, not a
circle; every other edge counts, so a parent using a child that uses a sibling that uses the
parent is one. Test code (`#[cfg(test)]` items, `tests` modules) is left out: it may import
anything.

Python (any other directory: a package, or a directory of modules run side by side): every
import statement, at module level, inside functions or under `if`, so a circle cannot hide
behind a function-local import.

    scripts/import_cycles.py crates/wlansec-wlan/src lab/wlansec_lab tests/python ...

prints each circle with the imports that close it and exits 1 if there is one."""

import ast
import re
import sys
from pathlib import Path

USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
QUALIFIED = re.compile(r"\b(?:crate|super|self)(?:::[A-Za-z_]\w*)+")
TEST_ITEM = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*[{;]")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def without_test_code(text: str) -> str:
    """Drop `#[cfg(test)] mod x { ... }` blocks (brace-matched) and `#[cfg(test)] mod x;`."""
    out, pos = [], 0
    for m in TEST_ITEM.finditer(text):
        if m.start() < pos:
            continue
        out.append(text[pos:m.start()])
        if m.group(0).endswith(";"):
            pos = m.end()
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        pos = i
    out.append(text[pos:])
    return "".join(out)


def expand(tree: str) -> list[str]:
    """`a::{b, c::{d, e as f}, self}` -> ['a::b', 'a::c::d', 'a::c::e', 'a']."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    if "{" not in tree:
        return [tree]
    head, body = tree.split("{", 1)
    body = body[:-1]  # the matching closing brace
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    paths = []
    for part in filter(None, parts):
        for sub in expand(part):
            paths.append(head.rstrip(":") if sub == "self" else head + sub)
    return paths


class Crate:
    def __init__(self, src: Path):
        self.src = src
        self.files: dict[tuple, Path] = {}
        for path in sorted(src.rglob("*.rs")):
            module = self.module_of(path)
            if module is not None and "tests" not in module:
                self.files[module] = path
        self.texts = {m: without_test_code(strip_comments(p.read_text())) for m, p in self.files.items()}
        self.reexports = {m: self.pub_uses(m) for m in self.files}

    def module_of(self, path: Path):
        parts = list(path.relative_to(self.src).with_suffix("").parts)
        if parts in (["lib"], ["main"]):
            return ()
        if parts[-1] == "mod":
            parts.pop()
        if parts[0] == "bin":
            return None
        return tuple(parts)

    def absolute(self, module: tuple, path: str):
        """Segments from the crate root, or None for another crate's path."""
        segs = path.split("::")
        if segs[0] == "crate":
            return segs[1:]
        base = list(module)
        if segs[0] not in ("self", "super") and segs[0] not in self.children(module):
            return None
        while segs and segs[0] in ("self", "super"):
            if segs.pop(0) == "super":
                if not base:
                    return None
                base.pop()
        return base + segs

    def children(self, module: tuple) -> set:
        return {m[len(module)] for m in self.files if len(m) == len(module) + 1 and m[:len(module)] == module}

    def pub_uses(self, module: tuple) -> dict:
        """name -> absolute path (or '*' globs) that this module re-exports."""
        names = {}
        for m in USE.finditer(self.texts[module]):
            if not m.group(1):
                continue
            for path in expand(m.group(2)):
                segs = self.absolute(module, path)
                if segs:
                    names[segs[-1] if segs[-1] != "*" else f"*{len(names)}"] = segs
        return names

    def resolve(self, segs: list, depth: int = 0):
        """The module (file) that defines the item `segs` names."""
        for n in range(len(segs), -1, -1):
            module = tuple(segs[:n])
            if module in self.files:
                break
        rest = segs[n:]
        if not rest or depth > 8:
            return module
        exports = self.reexports[module]
        if rest[0] in exports:
            return self.resolve(exports[rest[0]] + rest[1:], depth + 1)
        for key, target in exports.items():
            if key.startswith("*"):
                inner = self.resolve(target[:-1] + rest, depth + 1)
                if inner != tuple(target[:-1]):
                    return inner
        return module

    def edges(self) -> dict:
        """(from, to) -> the first line of `from` that makes the edge."""
        found = {}
        for module, text in self.texts.items():
            paths = [p for m in USE.finditer(text) for p in expand(m.group(2))]
            paths += QUALIFIED.findall(text)
            for path in paths:
                segs = self.absolute(module, path)
                if segs is None:
                    continue
                target = self.resolve(segs)
                if target != module and target != module[:len(target)]:  # not itself, not an ancestor
                    found.setdefault((module, target), path)
        return found


def python_edges(root: Path) -> dict:
    """(from, to) -> the first import that makes the edge, between the modules under `root`
    (a package when it has __init__.py: modules named from its name; else top-level modules)."""
    prefix = [root.name] if (root / "__init__.py").exists() else []
    paths = {}
    for path in sorted(root.rglob("*.py")):
        parts = prefix + list(path.relative_to(root).with_suffix("").parts)
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    found = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            else:
                continue
            for target in targets:
                if target in paths and target != name:
                    found.setdefault((name, target), f"line {node.lineno}: {ast.unparse(node)}")
    return found


def cycles(edges: dict) -> list[list]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph: dict = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def rust_circles(src: Path) -> list[str]:
    crate = Crate(src)
    edges = crate.edges()
    name = lambda m: "::".join(("crate",) + m)
    out = []
    for component in cycles(edges):
        lines = [f"circle in {src}: " + ", ".join(map(name, component))]
        lines += [f"  {crate.files[a].relative_to(src)} uses {path} ({name(b)})"
                  for (a, b), path in sorted(edges.items()) if a in component and b in component]
        out.append("\n".join(lines))
    return out


def python_circles(root: Path) -> list[str]:
    edges = python_edges(root)
    out = []
    for component in cycles(edges):
        lines = [f"circle in {root}: " + ", ".join(component)]
        lines += [f"  {a} imports {b} ({how})" for (a, b), how in sorted(edges.items()) if a in component and b in component]
        out.append("\n".join(lines))
    return out


def circles(root: Path) -> list[str]:
    is_rust = (root / "lib.rs").exists() or (root / "main.rs").exists()
    return rust_circles(root) if is_rust else python_circles(root)


def main(dirs: list[str]) -> int:
    problems = [c for d in dirs for c in circles(Path(d))]
    print("\n".join(problems) or f"no import circle in {', '.join(dirs)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
