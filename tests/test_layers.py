"""The layer rules, read from the source: every import statement, also the ones inside functions.

indexing -> tools -> chat; inside chat, the answer pipeline serves every front end and knows none of them.
`import chainlit` writes .chainlit/ and .files/ into the working directory, so only the UI may import it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def imports(package: str) -> list[tuple[str, str]]:
    """(file, imported module) for every absolute import in the package's files."""
    found = []
    for path in sorted((REPO / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found.extend((str(path.relative_to(REPO)), alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.extend((str(path.relative_to(REPO)), f"{node.module}.{alias.name}") for alias in node.names)
    return found


def offending(package: str, forbidden: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(f, m) for f, m in imports(package) if any(m == x or m.startswith(x + ".") for x in forbidden)]


@pytest.mark.parametrize("package, forbidden", [
    ("chat/pipeline", ("chat.ui", "chat.api", "chat.cli", "chat.runtime", "chainlit")),
    ("chat/api", ("chat.ui", "chat.cli", "chainlit")),
    ("tools", ("chat", "chainlit")),
    ("indexing", ("chat", "tools", "chainlit")),
    ("prompts", ("chat", "tools", "indexing", "chainlit")),
])
def test_layer_rules(package, forbidden):
    assert offending(package, forbidden) == []


def test_the_rules_see_imports_inside_functions(tmp_path, monkeypatch):
    sample = tmp_path / "pkg"
    sample.mkdir()
    (sample / "m.py").write_text("def f():\n    from chat.ui.render import escape_answer\n    import chainlit\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert offending("pkg", ("chat.ui", "chainlit")) == [("pkg/m.py", "chat.ui.render.escape_answer"),
                                                         ("pkg/m.py", "chainlit")]


def module_of(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def import_cycles(package: str) -> list[list[str]]:
    """Circles of imports between the package's modules, function-level imports included (a lazy import hides a
    circle from Python but not from a reader)."""
    found = imports(package)
    graph: dict[str, set[str]] = {module_of(path): set() for path, _ in found}
    for path, name in found:
        # `from a.b import c` names either module a.b.c or a name in a.b: take the longest that is a module
        target = next((m for m in (name, name.rpartition(".")[0]) if m in graph), None)
        if target and target != module_of(path):
            graph[module_of(path)].add(target)
    cycles, state = [], dict.fromkeys(graph, 0)  # 0 unseen, 1 on the current path, 2 done

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state[nxt] == 1:
                cycles.append(trail[trail.index(nxt):] + [node, nxt] if nxt in trail else [node, nxt])
            elif state[nxt] == 0:
                visit(nxt, trail + [node])
        state[node] = 2

    for node in sorted(graph):
        if state[node] == 0:
            visit(node, [])
    return cycles


@pytest.mark.parametrize("package", ["indexing", "tools", "chat"])
def test_no_import_circles(package):
    assert import_cycles(package) == []


def test_circles_are_seen_through_imports_inside_functions(tmp_path, monkeypatch):
    sample = tmp_path / "pkg"
    sample.mkdir()
    (sample / "a.py").write_text("from pkg.b import g\n")
    (sample / "b.py").write_text("def g():\n    from pkg import a\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert import_cycles("pkg") == [["pkg.a", "pkg.b", "pkg.a"]]


def test_tests_import_shared_helpers_from_modules_not_conftest():
    assert [f for f, m in imports("tests") if m == "conftest" or m.startswith("conftest.")] == []
