"""Reading the model's raw reply: what reaches the reader and what counts as the answer.

The ReAct scratchpad (Thought/Action/Observation) must never reach the reader; a small model leaks it around its
answer, declines in its own words, or breaks the format altogether. Everything here is text in, text out.
"""

from __future__ import annotations

import re

from tools.references import find_citations


class AnswerFilter:
    """Lets through only what the model writes after "Answer:" in the current LLM call: the scratchpad
    (Thought/Action/Observation) never reaches the user."""

    def __init__(self) -> None:
        self.emitted = 0

    def reset(self) -> None:
        self.emitted = 0

    def feed(self, response: str) -> str:
        at = response.find("Answer:")
        if at < 0:
            return ""
        body = response[at + len("Answer:"):].lstrip()
        for stop in ("\nThought:", "\nAction:", "\nObservation:"):
            cut = body.find(stop)
            if cut >= 0:
                body = body[:cut]
        # Hold back a partial "\nThought:" that may still be forming at the end.
        tail = body.rfind("\n")
        safe = body if tail < 0 or len(body) - tail > 14 else body[:tail]
        new = safe[self.emitted:]
        self.emitted = max(self.emitted, len(safe))
        return new


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
    """Remove what a small model leaks around the answer: a second "Thought:", "Answer:" labels, code fences."""
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
