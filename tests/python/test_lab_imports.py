"""The laboratory's modules import one way: no import circle among lab/wlansec_lab's modules,
counting every import statement (at module level, inside functions or under `if`), so a circle
cannot hide behind a function-local import."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "lab" / "wlansec_lab"
NAME = PACKAGE.name


def module_name(path: Path) -> str:
    parts = [NAME, *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` names in any import statement: `from P import M` names
    the module P.M where it is one, else P itself; a relative import is resolved against `name`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names}
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan), each as one circle through it."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(circle(edges, set(component)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def circle(edges: dict[str, set[str]], component: set[str]) -> list[str]:
    """One import circle inside `component`, from its first module back to it (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & component):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    raise AssertionError(f"no circle in {sorted(component)}")


def test_the_graph_sees_every_module_and_function_local_imports():
    edges = graph()
    assert {"wlansec_lab.runner", "wlansec_lab.report", "wlansec_lab.report.data"} <= set(edges)
    assert "wlansec_lab.tidy" in edges["wlansec_lab.runner"]
    assert "wlansec_lab.ciphers" in edges["wlansec_lab.experiments"]  # imported inside a function


def test_the_cycle_finder_names_a_hidden_circle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_laboratory():
    found = cycles(graph())
    assert not found, "import circles: " + "; ".join(" → ".join(c) for c in found)
