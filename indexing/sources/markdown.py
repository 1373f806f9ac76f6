"""Markdown: paragraphs under their heading path (`A > B > C`), split at section boundaries; FAQ files become one
question-and-answer pair per chunk."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from indexing.models import SourceDocument, Unit
from indexing.settings import ScholarSettings
from indexing.sources.common import file_doc_id, paragraphs, read_utf8, split_long

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_Q_LINE = re.compile(r"^\s*(?:\*\*)?Q(?:uestion)?\s*[:.]\s*(?:\*\*)?\s*(.*)$", re.IGNORECASE)
_A_LINE = re.compile(r"^\s*(?:\*\*)?A(?:nswer)?\s*[:.]\s*(?:\*\*)?\s*(.*)$", re.IGNORECASE)


@dataclass
class _Section:
    path: list[str]  # heading texts from the top level down to this section's own heading
    level: int
    lines: list[str] = field(default_factory=list)


def _sections(text: str) -> list[_Section]:
    sections = [_Section([], 0)]
    stack: list[tuple[int, str]] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            level, title = len(match.group(1)), match.group(2).strip()
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            sections.append(_Section([t for _, t in stack], level))
        else:
            sections[-1].lines.append(line)
    return sections


def _is_question(title: str) -> bool:
    return title.rstrip("*_ ").endswith("?")


def is_faq(path: Path, sections: list[_Section]) -> bool:
    if "faq" in path.stem.lower():
        return True
    lines = [line for s in sections for line in s.lines]
    if sum(1 for line in lines if _Q_LINE.match(line)) >= 2 and any(_A_LINE.match(line) for line in lines):
        return True
    headed = [s for s in sections if s.path]
    questions = [s for s in headed if _is_question(s.path[-1])]
    return len(questions) >= 2 and len(questions) * 2 >= len(headed)


def _qa_pairs(lines: list[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    question: str | None = None
    answer: list[str] = []
    for line in [*lines, "Q: "]:  # the sentinel closes the last pair
        q, a = _Q_LINE.match(line), _A_LINE.match(line)
        if q:
            if question and answer:
                pairs.append((question, " ".join(answer)))
            question, answer = q.group(1).strip(), []
        elif a and question is not None and not answer:
            answer.append(a.group(1).strip())
        elif line.strip() and question is not None:
            # a continuation line belongs to the answer once it has started, else to the question
            if answer:
                answer.append(line.strip())
            else:
                question = f"{question} {line.strip()}"
    return pairs


def _faq_units(sections: list[_Section]) -> list[Unit]:
    units: list[Unit] = []
    for section in sections:
        body = "\n".join(section.lines)
        if section.path and _is_question(section.path[-1]):
            answer = " ".join(paragraphs(body))
            if answer:
                units.append(Unit(text=f"Q: {section.path[-1]}\nA: {answer}", heading=" > ".join(section.path[:-1]),
                                  boundary=True))
            continue
        heading = " > ".join(section.path)
        for question, answer in _qa_pairs(section.lines):
            units.append(Unit(text=f"Q: {question}\nA: {answer}", heading=heading, boundary=True))
    return units


def _prose_units(sections: list[_Section], max_chars: int) -> list[Unit]:
    units = []
    for section in sections:
        heading = " > ".join(section.path)
        for para in paragraphs("\n".join(section.lines)):
            for i, piece in enumerate(split_long(para, max_chars)):
                units.append(Unit(text=piece, heading=heading, boundary=i == 0))
    return units


def read_markdown(path: Path, settings: ScholarSettings) -> list[SourceDocument]:
    sections = _sections(read_utf8(path))
    faq = is_faq(path, sections)
    units = _faq_units(sections) if faq else []
    if not units:  # a file named *faq* without question structure is still worth reading as prose
        faq = False
        units = _prose_units(sections, settings.chunk_max_chars)
    if not units:
        return []
    top = next((s.path[0] for s in sections if s.level == 1 and s.path), path.stem)
    kind = "faq" if faq else "markdown"
    return [SourceDocument(doc_id=file_doc_id(path, kind), title=top, source_path=str(path), kind=kind, units=units)]
