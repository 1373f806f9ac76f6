"""Prompt templates, one `.md` file per prompt, loaded by name.

Placeholders are `{name}` (lowercase identifiers only), so JSON examples such as `{"query": "..."}` in a template
are left alone. A placeholder left unfilled, or a value passed for a placeholder the template does not have, is a
bug in the caller: both raise rather than send a half-formatted prompt to the model.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class PromptError(KeyError):
    """A template is missing, or its placeholders do not match the values given."""

    def __str__(self) -> str:  # KeyError quotes its message; this one is meant to be read
        return str(self.args[0]) if self.args else ""


@cache
def raw_prompt(name: str) -> str:
    path = _DIR / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"no prompt template named {name!r} (looked for {path})")
    return path.read_text(encoding="utf-8").strip() + "\n"


def placeholders(name: str) -> set[str]:
    return set(_PLACEHOLDER.findall(raw_prompt(name)))


def load_prompt(name: str, **values: object) -> str:
    template = raw_prompt(name)
    wanted = placeholders(name)
    missing = wanted - values.keys()
    if missing:
        raise PromptError(f"prompt {name!r} needs values for {sorted(missing)}")
    extra = values.keys() - wanted
    if extra:
        raise PromptError(f"prompt {name!r} has no placeholder(s) {sorted(extra)}")
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)
