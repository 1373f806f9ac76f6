"""From numbered evidence to the reader's text: the key lines quoted first, the model's "[n]" turned into
references, and an answer made of the evidence alone when none of the model's sentences holds.

The model cites by number because it can only be shown so many passages and a number cannot be misspelt; the
reader needs the reference. Mapping happens here, once, in code: a number the turn never showed maps to nothing
and is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chat.pipeline.answer import Answer, AnswerSentence, Citation
from indexing.vocabulary import segment_key
from tools.language.speakers import BUDDHA_NAMED
from tools.passages import nested_quotes
from tools.search.windows import REPLY_CHARS, EvidenceWindow
from tools.turn import TurnRecorder

NUMBER = re.compile(r"\[(\d{1,3})\]")
_RUN = re.compile(r"(?:\s*\[\d{1,3}\])+")
KEY_LINES_CHARS = REPLY_CHARS  # a key window is quoted whole: a question with its reply, a long line up to here
KEY_WINDOWS = 2  # a question's facts are often split over two stretches of its text (a question and its reply)
KEY_WINDOW_FLOOR = 0.6  # a second window is quoted only when it ranks this close to the first
SAME_TEXT_PREFERENCE = 1.1  # the first window's own text wins the second place unless another text is this much better


def quote_text(window: EvidenceWindow, limit: int = KEY_LINES_CHARS) -> str:
    """The window's lines as one quotation: verse line marks become spaces, and a long window is cut once past
    `limit`: at the end of a segment, or, when a single long line (a list) would fill the quotation, at the last
    sentence or word that fits, marked with an ellipsis."""
    return _joined(window.texts, limit).strip("“”\"'‘’ ").rstrip(",;:—")


def script_text(window: EvidenceWindow, voices: Sequence[str | None], limit: int = KEY_LINES_CHARS) -> str | None:
    """The window's lines as a dialogue's script, each quotation the text does not introduce on its own line
    opened by who says it ("King Pasenadi: “Sir, what could I do …”"), where someone other than the Buddha speaks
    in them; None when no line needs it. `voices`: who says each line (`EvidenceIndex.voices`)."""
    if all(v in (None, BUDDHA_NAMED) for v in voices):
        return None  # the Buddha's words alone: the model takes them for his anyway, and a name invites a copy
    texts: list[str] = []
    tagged = False
    before: str | None = None
    for k, (text, voice) in enumerate(zip(window.texts, voices, strict=False)):
        # a quotation opened with no introduction (the line before ends otherwise), or the window's first line
        # inside one
        opens = text.lstrip().startswith("“") and not (k and texts[-1].rstrip().endswith((":", ",")))
        if voice and voice != before and (opens or k == 0):
            text, tagged = f"{voice[:1].upper()}{voice[1:]}: {text.lstrip()}", True
        texts.append(text)
        before = voice
    return _joined(texts, limit).strip().rstrip(",;:—") if tagged else None


def _joined(texts: Sequence[str], limit: int) -> str:
    out = ""
    for text in texts:
        line = " ".join(text.replace("<j>", " ").split())
        if not line:
            continue
        if out and len(out) + len(line) > limit:
            room = limit - len(out)
            if room >= limit // 3:  # most of the quotation would be missing: the start of the line is worth it
                out = f"{out} {_cut(line, room)}"
            break
        out = f"{out} {line}".strip()
    return out


def _cut(line: str, room: int) -> str:
    """The start of `line` in about `room` characters: to the last sentence end that fits, else the last word."""
    head = line[:room]
    end = max(head.rfind(". "), head.rfind("? "), head.rfind("! "))
    if end >= room // 2:
        return head[: end + 1]
    return head.rsplit(" ", 1)[0].rstrip(",;:—") + " …"


def key_windows(evidence: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """The windows quoted first: the best, and the next best when it ranks close to it (its text's other part of
    the answer, or a second text saying it); in reading order when they are of one text. The best window's own
    text is preferred for the second by a small margin: a question has one subject, and another text's window
    that only ties with it is an aside (Iti 93's "fires" beside Vacchagotta's fire in MN 72)."""
    if not evidence:
        return []
    first = evidence[0]
    top = first.score

    def weight(w: EvidenceWindow) -> float:
        return w.score * (SAME_TEXT_PREFERENCE if w.doc_id == first.doc_id else 1.0)

    chosen = [first]
    for w in sorted(evidence[1:], key=lambda w: -weight(w)):
        if len(chosen) == KEY_WINDOWS:
            break
        if top > 0 and w.score < KEY_WINDOW_FLOOR * top:
            continue
        if not any(w.overlaps(c) for c in chosen):
            chosen.append(w)
    if len({w.doc_id for w in chosen}) == 1:
        chosen.sort(key=lambda w: segment_key(w.seg_ids[0]))
    return chosen


def key_lines(windows: list[EvidenceWindow]) -> str:
    """The evidence the reader sees first, as Markdown block quotes with their references."""
    return "\n".join(f"> “{quote_text(w)}” [{w.ref}]" for w in windows)


def map_numbers(text: str, recorder: TurnRecorder) -> tuple[str, list[int]]:
    """"... flood [1][3]." -> "... flood [SN 1.1:1.5; SN 1.1:1.7–1.9]."; returns the text and the numbers that
    stand for nothing shown this turn (removed)."""
    unknown: list[int] = []

    def replace(m: re.Match) -> str:
        refs: list[str] = []
        for n in (int(x) for x in NUMBER.findall(m.group(0))):
            window = recorder.cited(n)
            if window is None:
                unknown.append(n)
            elif window.ref not in refs:
                refs.append(window.ref)
        lead = " " if m.group(0)[:1].isspace() else ""
        return f"{lead}[{'; '.join(refs)}]" if refs else ""

    return _RUN.sub(replace, text), unknown


EVIDENCE_ONLY_OPENING = "The texts I have say this"
_UNNAMED_OPENING = "None of the texts I found names "


def evidence_only(windows: list[EvidenceWindow], shown: str, unnamed: Sequence[str] = ()) -> str:
    """An answer when none of the model's sentences stood: one plain sentence introducing the quoted evidence. When
    the question names someone these lines never name (`unnamed`), the sentence says so: they are the closest
    lines found, not what the texts say of that person."""
    where = ", ".join(dict.fromkeys(w.sutta_id or w.title for w in windows))
    if unnamed:
        who = " or ".join(unnamed)
        return f"{_UNNAMED_OPENING}{who}; the closest passages are these ({where}):\n\n{shown}".strip()
    return f"{EVIDENCE_ONLY_OPENING} ({where}):\n\n{shown}".strip()


def is_evidence_only(text: str) -> bool:
    """Whether an answer is the quoted lines alone, under the sentence `evidence_only` opens them with (after the
    text's summary, when one opens the answer)."""
    if text.startswith(SUMMARY_OPENING):
        text = text.partition("\n\n")[2]
    return text.startswith((EVIDENCE_ONLY_OPENING, _UNNAMED_OPENING))


SUMMARY_OPENING = "SuttaCentral's summary of "


@dataclass(frozen=True)
class Summary:
    """SuttaCentral's summary (blurb) of the one text a question asks about as a whole: it opens the answer,
    quoted and attributed, never as the model's words."""

    sutta_id: str
    title: str
    blurb: str

    @property
    def sentence(self) -> str:
        named = f"{self.sutta_id}, {self.title}" if self.title else self.sutta_id
        return f"{SUMMARY_OPENING}{named}: “{nested_quotes(self.blurb)}”"

    @property
    def text(self) -> str:
        """As the answer shows it, with the text's reference (the side panel opens the text)."""
        return f"{self.sentence} [{self.sutta_id}]"


def with_summary(answer: Answer, summary: Summary | None) -> None:
    """The answer opened by the text's summary (streamed first, so it stays whatever follows): a quotation of
    SuttaCentral's words, cited to the text; an answer that found nothing else to say is the summary."""
    if summary is None:
        return
    if answer.status == "abstained":
        # "I don't find this …" under a summary of the very text would take back what it shows
        answer.answer, answer.status, answer.sentences = summary.text, "answered", []
    else:
        answer.answer = f"{summary.text}\n\n{answer.answer}"
    answer.sentences = [AnswerSentence(text=summary.sentence, origin="quote", citations=[summary.sutta_id]),
                        *answer.sentences]
    if not any(c.ref == summary.sutta_id for c in answer.citations):
        # the reference a chip: its panel shows what the sentence quotes, the summary, under the text's title
        answer.citations = [Citation(ref=summary.sutta_id, sutta_id=summary.sutta_id, title=summary.title,
                                     excerpt=summary.blurb), *answer.citations]


def edge_of_text(window: EvidenceWindow, *, after: bool) -> str:
    """ "What comes next?" asked at the last line of a text (or "before" at its first) when the library holds no
    text beside it in its book: the answer is that the text ends there, cited to that line."""
    name = f"{window.sutta_id} ({window.title})" if window.title and window.sutta_id else \
        (window.sutta_id or window.title)
    if after:
        return f"Nothing follows {window.ref} in the texts I have: it is the last passage of {name} [{window.ref}]."
    return f"Nothing comes before {window.ref} in the texts I have: it is the first passage of {name} [{window.ref}]."

