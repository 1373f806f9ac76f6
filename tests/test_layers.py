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
