"""Reading the model's raw reply: what counts as the answer.

The ReAct scratchpad (Thought/Action/Observation) must never reach the reader; a small model leaks it around its
answer, declines in its own words, or breaks the format altogether. Everything here is text in, text out; nothing
of the reply is streamed before it is checked, so it is read whole.
"""

from __future__ import annotations

import re

from tools.references import find_citations

_ABSTAIN = re.compile(
    r"\b(?:i )?(?:do not|don'?t|don’t|cannot|can'?t|can’t|could not|couldn'?t|did not|didn'?t) find "
    r"(?:this|that|it|anything|any)"
    r"|\bnot (?:found|mentioned|covered|discussed) in the (?:texts|passages)"
    r"|\bthe (?:texts|passages) (?:do not|don'?t) "
    r"(?:say|mention|answer|cover)",
    re.IGNORECASE,
)


def looks_like_abstention(text: str) -> bool:
    """The model declined: an abstention phrase, and little else of substance."""
    if not _ABSTAIN.search(text):
        return False
    rest = _ABSTAIN.sub("", text)
    return len(find_citations(text)) == 0 or len(rest) < 160


def clean_draft(text: str) -> str:
    """Remove what a small model leaks around the answer: a second "Thought:", "Answer:" labels, code fences. A
    scratchpad with no answer in it is no answer at all."""
    if re.match(r"\s*Thought\s*:", text) and "Answer:" not in text:
        return ""
    text = re.split(r"\n\s*(?:Thought|Action|Action Input|Observation)\s*:", text)[0]
    text = re.sub(r"^\s*(?:Thought:.*?\n)?\s*Answer\s*:\s*", "", text, flags=re.S)
    text = text.replace("```", "")
    return text.strip()


def salvage(raw: str) -> str | None:
    """An answer inside a malformed reply: text after "Answer:", or prose with no tool call in it."""
    if "Answer:" in raw:
        return raw.split("Answer:", 1)[1]
    if "Action:" in raw or "Action Input:" in raw:
        return None
    text = "\n".join(line for line in raw.splitlines() if not line.strip().startswith("Thought:")).strip()
    return text if len(text) > 60 else None
