"""Pure text helpers for the Chainlit chat: what the reader sees, as Markdown that cannot carry HTML or links.

Chainlit renders message and element content as Markdown (raw HTML off). Model and corpus text are still
escaped here so a document or an answer cannot inject an image, a link or markup. Citations become clickable
because the app attaches a side element whose *name* is the citation's ref; Chainlit links every occurrence of
an element name in the message, so the answer text needs no link syntax of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from chat.input import has_surrogates
from chat.pipeline.answer import Answer, Citation, ClaimVerdict, TraceStep
from indexing.progress import SemanticProgress
from indexing.vocabulary import WARNING_ICON, segment_ref, translator_name

# Backslash, brackets and angle brackets are enough to make model text inert: no link, image, autolink or HTML
# can be formed without them. Mapping char by char keeps the escape correct across streamed token boundaries.
_ANSWER_ESCAPES = str.maketrans({"\\": "\\\\", "[": "\\[", "]": "\\]", "<": "\\<", ">": "\\>"})
# Corpus text is shown verbatim, so every Markdown metacharacter is neutralised (also `|` for table cells).
_CORPUS_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")

FOLLOW_UP_LABEL_CHARS = 90
HARD_BREAK = "  \n"  # Markdown's line break inside a paragraph


def escape_answer(text: str) -> str:
    return text.translate(_ANSWER_ESCAPES)


class AnswerStream:
    """escape_answer for an answer arriving token by token, which also lets a quoted line (`> “…”`) be a block quote
    while it streams, as render_answer will show it: a `>` that opens a line stays, and each line break is a
    paragraph break, so that a second quote does not run on from the first."""

    def __init__(self) -> None:
        self._line_start = True

    def feed(self, token: str) -> str:
        out = []
        for ch in token:
            if ch == "\n":
                out.append("\n\n")
                self._line_start = True
                continue
            out.append(">" if ch == ">" and self._line_start else escape_answer(ch))
            self._line_start = self._line_start and ch in " \t"
        return "".join(out)


def escape_corpus(text: str) -> str:
    return _CORPUS_SPECIALS.sub(r"\\\1", " ".join(text.split()))


def escape_verse(text: str, joiner: str) -> str:
    """Corpus text whose line breaks (verse lines, `<j>` in the source) survive escaping, joined by `joiner`:
    Markdown's hard break outside a table, " / " inside a table cell, where a line cannot break."""
    return joiner.join(escape_corpus(line) for line in text.splitlines() if line.strip())


def semantic_notice(progress: SemanticProgress | None) -> str | None:
    """The line a new chat opens with while the semantic index is being built (None once it is complete): how
    far it is, and that questions are answered meanwhile."""
    if progress is None or progress.complete:
        return None
    return (f"**{progress.describe().capitalize()}.** You can ask now: passages are found by their words "
            "everywhere, and by their meaning among those already embedded; answers get better at finding texts "
            "described in other words as it fills in.")


def check_input(text: str, max_chars: int) -> str | None:
    """Why a question is refused, or None when it can be asked."""
    stripped = text.strip()
    if not stripped:
        return "Please type a question — for example *What does the Fire Sermon say is burning?*"
    if has_surrogates(stripped):
        return "That message holds characters that are not valid text (lone surrogates). Please type it again."
    if len(stripped) > max_chars:
        return (
            f"That message is {len(stripped):,} characters long; the limit is {max_chars:,}. "
            "Please ask a shorter question (you can quote just the passage you mean)."
        )
    return None


def render_answer(answer: Answer) -> str:
    """The final message: the escaped answer (the pipeline has already marked or replaced its unsupported
    sentences in the text), the flagged sentences listed with their reasons, and a note for abstentions and
    failures."""
    body = answer_markdown(answer.answer.strip(), {c.ref for c in answer.citations})
    parts = []
    if answer.status == "failed":
        # the error names the cause (the model, the memory database, ...): the heading must not guess it
        parts.append(f"**I could not answer this time.** {escape_answer(answer.error or '')}".strip())
        if answer.citations:
            parts.append("The passages found for your question are listed below; open a reference to read it.")
    elif answer.status == "abstained":
        parts.append("*I could not find this in the indexed texts, so I will not guess.*")
    if body:
        parts.append(body)
    flagged = [v for v in answer.unsupported_claims if v.verdict != "supported"]
    if flagged:
        notes = [f"> {WARNING_ICON} **Not supported by the cited passages** — please check these:"]
        for v in flagged:
            notes.append(f"> - “{escape_answer(_short(v.sentence, 160))}” — {escape_answer(_reason(v))}")
        parts.append("\n".join(notes))
    if answer.citations and answer.status != "failed":
        parts.append("**Sources:** " + " · ".join(escape_answer(c.ref) for c in unique_citations(answer.citations)))
    elif answer.citations:
        refs = " · ".join(escape_answer(c.ref) for c in unique_citations(answer.citations))
        parts.append(f"**Passages found:** {refs}")
    return "\n\n".join(parts)


# A bracketed group of citations: "[MN 20:1.2–1.3]", "[SN 1.1:1.5; SN 1.1:1.7–1.9]".
_BRACKETED = re.compile(r"\[([^\[\]\n]+)\]")
_REF_SEPARATOR = re.compile(r"\s*;\s*")


def answer_markdown(text: str, refs: set[str]) -> str:
    """The answer's own text as Markdown: escaped, each quoted line (`> “…” [ref]`, compose's key lines) a block
    quote of its own, and the brackets around cited references dropped, since each reference becomes a chip."""
    blocks: list[str] = []
    prose: list[str] = []
    for line in text.splitlines():
        if line.startswith(">"):
            if prose:
                blocks.append("\n".join(prose))
                prose = []
            blocks.append("> " + _with_chips(line.lstrip(">").strip(), refs))
        elif line.strip():
            prose.append(_with_chips(line, refs))
        elif prose:
            blocks.append("\n".join(prose))
            prose = []
    if prose:
        blocks.append("\n".join(prose))
    return "\n\n".join(blocks)


def _with_chips(line: str, refs: set[str]) -> str:
    """Escape a line, leaving bare the references shown as chips (Chainlit links an element's name; brackets around
    it would stay on the page as literal brackets)."""
    out: list[str] = []
    last = 0
    for m in _BRACKETED.finditer(line):
        names = _REF_SEPARATOR.split(m.group(1).strip())
        if not names or not all(n in refs for n in names):
            continue
        out.append(escape_answer(line[last:m.start()]))
        out.append(" · ".join(escape_answer(n) for n in names))
        last = m.end()
    out.append(escape_answer(line[last:]))
    return "".join(out)


def _reason(v: ClaimVerdict) -> str:
    reason = v.reason.rstrip(".") or {"unsupported": "the cited passage does not say this",
                                      "partial": "only partly supported", "uncited": "no citation given"
                                      }.get(v.verdict, v.verdict)
    if v.evidence_ref:
        reason += f" (checked against {v.evidence_ref})"
    if v.revised_to == "":
        reason += "; removed from the answer"
    elif v.pointer and v.revised_to:
        reason += f"; now cites only what holds it: {v.revised_to}"
    elif v.verdict == "partial" and v.revised_to:
        reason += "; the unsupported part was taken out of the answer"
    elif v.revised_to:
        reason += "; replaced in the answer by the passage's own words"
    return reason


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def unique_citations(citations: Iterable[Citation]) -> list[Citation]:
    seen: dict[str, Citation] = {}
    for c in citations:
        seen.setdefault(c.ref, c)
    return list(seen.values())


def follow_up_label(question: str) -> str:
    return _short(question, FOLLOW_UP_LABEL_CHARS)


# Steps that are not tool calls, named for the reader.
_STEP_NAMES = {"resolve_question": "Follow-up or new question?", "write_answer": "Writing and checking the answer",
               "key_lines": "The lines that answer"}


def step_name(step: TraceStep) -> str:
    return _STEP_NAMES.get(step.tool, step.tool)


def step_input(step: TraceStep) -> str:
    return json.dumps(step.input, ensure_ascii=False, indent=2, default=str)


def step_output(step: TraceStep) -> str:
    """The tool's readable summary as an escaped Markdown block, its duration and any error."""
    lines = [escape_corpus_line(line) for line in (step.output_summary or "").splitlines() if line.strip()]
    out = "  \n".join(lines) if lines else "*(no output)*"
    if step.error:
        out = f"**Error:** {escape_corpus_line(step.error)}\n\n{out}"
    return f"{out}\n\n*{step.duration_ms:,.0f} ms*"


def escape_corpus_line(line: str) -> str:
    """Like escape_corpus but keeps leading indentation readable (as non-breaking spaces)."""
    indent = len(line) - len(line.lstrip(" "))
    return "\u00a0" * indent + escape_corpus(line)


def trace_json(answer: Answer, question: str) -> bytes:
    payload = {"question": question, **answer.model_dump(mode="json")}
    return json.dumps(payload, ensure_ascii=False, indent=2).encode("utf-8")


def passage_markdown(citation: Citation, *, title: str, collection: str, rows: list[tuple[str, str, str, bool]],
                     note: str = "", links: list[str] | None = None) -> str:
    """Side panel for one citation: heading, then segment | English | Pali with the cited rows highlighted.

    rows: (segment ref, English, Pali, cited?) in reading order, already cut to the context window.
    links: Markdown lines of links built from IDs (chat/ui/reader.panel_links), shown under the heading as they are.
    """
    head = [f"### {escape_corpus(citation.ref)} — {escape_corpus(title or citation.title or '')}".rstrip(" —")]
    translated = f"translated by {translator_name(citation.translator)}" if citation.translator else ""
    meta = [m for m in (collection, citation.sutta_id, translated) if m]
    if meta:
        head.append(" · ".join(escape_corpus(m) for m in dict.fromkeys(meta)))
    if note:
        head.append(f"*{escape_corpus(note)}*")
    head.extend(links or [])
    if not rows:
        body = [escape_corpus(citation.excerpt or "(no text stored for this passage)")]
        if citation.pali:
            body.append(f"*{escape_corpus(citation.pali)}*")
        return "\n\n".join(head + body + _renderings(citation))
    table = ["| | English | Pāli |", "|---|---|---|"]
    for ref, en, pali, cited in rows:
        cells = [f"▶ {escape_corpus(ref)}" if cited else escape_corpus(ref), escape_verse(en, " / "),
                 escape_verse(pali, " / ")]
        if cited:
            cells = [f"**{c}**" if c else c for c in cells]
        table.append("| " + " | ".join(c or " " for c in cells) + " |")
    return "\n\n".join([*head, "\n".join(table), *_renderings(citation)])


def _renderings(citation: Citation) -> list[str]:
    """The cited lines in the library's other translations, under the table: an alternative, not a second source."""
    out = []
    for alt in citation.alternatives:
        span = alt.segment_start or ""
        if alt.segment_end and alt.segment_end != alt.segment_start:
            span += "–" + alt.segment_end.partition(":")[2]
        where = f" ({escape_corpus(segment_ref(span))})" if span else ""
        out.append(f"**Also translated by {escape_corpus(alt.translator_name)}**{where}\n\n"
                   f"{escape_verse(alt.text, HARD_BREAK)}")
    return out
