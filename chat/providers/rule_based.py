"""A model-free reply policy for demos and the browser e2e test: it reads the prompt, never a hard-coded answer.

In a ReAct exchange it searches for the user's question first, then answers from the first passage of the
Observation that carries a citation ref. It also answers the other prompts the app sends an LLM (the direct
fallback answer, follow-up questions, the yes/no reranker) from their own contents, so every
path of the app works without a model. Parsing is deliberately loose: prompts change, this should not break.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from indexing.vocabulary import ABSTAIN_SENTENCE
from tools.language.sentences import split_at_stops
from tools.language.words import tokenize
from tools.references import MENTION

_NUMBERED = re.compile(r"^\[(\d+)\] [^()\n]*? \([^()\n]*\): (.*)")  # "[2] MN 21:20.1 (Title): text"
_REF_LINE = re.compile(r"\[([^\[\]\n]*\d[^\[\]\n]*)\]\s*(.*)")
_NOTES = re.compile(r"^\s*\((?:Notes?|Earlier in this conversation):.*\)\s*$", re.I)


def _text(message: ChatMessage) -> str:
    return message.content or ""


def _is_observation(message: ChatMessage) -> bool:
    return message.role != MessageRole.ASSISTANT and _text(message).lstrip().startswith("Observation:")


def _field(text: str, name: str) -> str | None:
    match = re.search(rf"^{name}:[ \t]*(.*)$", text, re.M)
    return match.group(1).strip() if match else None


def user_question(messages: Sequence[ChatMessage]) -> str:
    """The current question: the last user turn that is not a tool Observation, without the planner's notes."""
    for message in reversed(messages):
        if message.role == MessageRole.USER and not _is_observation(message):
            text = _text(message)
            asked = _field(text, "Question")
            if asked:
                return asked
            lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not _NOTES.match(ln)]
            return " ".join(lines)
    return ""


def current_observations(messages: Sequence[ChatMessage]) -> list[str]:
    """Observations after the current question (earlier turns' tool outputs are not this turn's evidence)."""
    found: list[str] = []
    for message in reversed(messages):
        if _is_observation(message):
            found.append(_text(message).lstrip()[len("Observation:"):].strip())
        elif message.role == MessageRole.USER:
            break
    return list(reversed(found))


def first_cited_passage(text: str) -> tuple[str, str] | None:
    """(ref, passage text) of the first line that carries a reference: numbered evidence `[2] MN 21:3.1 (Title):
    text` is cited by its number, as the prompt asks; an older `[MN 21:3.1–3.4] Title: text` by its reference."""
    for line in text.splitlines():
        numbered = _NUMBERED.match(line.strip())
        if numbered:
            return numbered.group(1), numbered.group(2).strip()
    for line in text.splitlines():
        match = _REF_LINE.search(line)
        if match:
            body = match.group(2).strip()
            title, sep, rest = body.partition(": ")
            return match.group(1).strip(), (rest if sep and len(title) < 80 else body).strip()
    match = MENTION.search(text)
    if match:
        return match.group(0), text[match.end():].strip(" :—-\n")
    return None


def excerpt(text: str, limit: int = 220) -> str:
    text = " ".join(text.replace('"', "'").split()).rstrip(" …")
    first = split_at_stops(text, ".!?;", maxsplit=1)[0]
    if len(first) > limit:
        first = first[:limit].rsplit(" ", 1)[0]
    return first.rstrip(",;:")


def answer_from(observations: Sequence[str]) -> str:
    for observation in observations:
        found = first_cited_passage(observation)
        if found and found[1]:
            ref, passage = found
            return f'According to [{ref}], "{excerpt(passage)}"'
    return ABSTAIN_SENTENCE


def _overlap(claim: str, evidence: str) -> float:
    wanted = set(tokenize(claim))
    return len(wanted & set(tokenize(evidence))) / len(wanted) if wanted else 0.0


def _rerank(prompt: str) -> str:
    question = _field(prompt, "Question") or ""
    passage = prompt.split("Passage", 1)[-1]
    return "yes" if _overlap(question, passage) >= 0.34 else "no"


def _follow_ups(prompt: str) -> str:
    match = re.search(r"Write (\d+)", prompt)
    count = int(match.group(1)) if match else 2
    sources = [s.strip() for s in (_field(prompt, "Texts cited") or "").split(",") if s.strip()]
    subject = (_field(prompt, "Question") or "this teaching").rstrip("?.! ")
    asks = [f"What does {s} say just before and after this passage?" for s in sources[:count]]
    asks.append(f"Where else do the discourses speak of this: {subject}?")
    asks.append("How might this teaching be put into practice?")
    return "\n".join(asks[:count])


def rule_based_reply(messages: Sequence[ChatMessage]) -> str:
    prompt = "\n".join(_text(m) for m in messages)
    system = "\n".join(_text(m) for m in messages if m.role == MessageRole.SYSTEM)
    if "Action Input" in system:
        observations = current_observations(messages)
        if not observations:
            query = user_question(messages)
            return (f"Thought: I need passages about the question.\nAction: search_passages\n"
                    f"Action Input: {json.dumps({'query': query}, ensure_ascii=False)}")
        return "Thought: I can answer.\nAnswer: " + answer_from(observations)
    if re.search(r"yes or no", prompt, re.I) and _field(prompt, "Question") is not None:
        return _rerank(prompt)
    if re.search(r"follow-up questions", prompt, re.I):
        return _follow_ups(prompt)
    if "Passages:" in prompt:
        return answer_from([prompt.split("Passages:", 1)[1]])
    return answer_from([prompt])
