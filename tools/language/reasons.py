"""Reasons: a line that gives one ("Because …", "That's why …") and a sentence that claims one ("… because …").

A "why" question asks for the line that gives the reason (tools.search.shapes); a sentence of the model's own that
says "because" claims the text gives that reason, so the lines it cites must give one (the claim checks). Both
patterns are data: indexing/data/english.toml, [patterns] gives_reason and asserts_reason.
"""

from __future__ import annotations

import re

from tools.language.words import pattern

_GIVES = re.compile(pattern("gives_reason").pattern, re.IGNORECASE)
_ASSERTS = re.compile(pattern("asserts_reason").pattern, re.IGNORECASE)


def gives_reason(text: str) -> bool:
    """The text gives a reason ("Because …", "That's why …", "Since old age and death are advancing …")."""
    return bool(_GIVES.search(text))


def asserts_reason(text: str) -> bool:
    """The sentence claims a reason: "… because …", "… due to …", "That's why …"; "ever since" does not."""
    return bool(_ASSERTS.search(text))
