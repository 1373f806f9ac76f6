"""The lines that answer a question: ranked windows of consecutive segments inside the texts retrieval found.

Retrieval ranks chunks of ~700 characters; a reader (and a small model) needs the few segments that answer. Inside
each candidate text every segment is scored by
- the question's words it holds, weighted by rarity, with part credit for words of its neighbours, of its section
  heading ("The Buddha's Last Words") and of the text's title ("The Simile of the Mountain"); a name only the
  title gives ("Uttamā", whose verses never say her name) is held by each of its lines;
- the dense similarity of the chunk that holds it, read from the stored vectors (no embedding at query time but
  the question's own, which retrieval has already cached);
- the text's rank in retrieval, so a text the search put first is not outvoted by a long neighbour that repeats a
  common word.
The best segments are widened into readable windows — back one segment when the best one is a fragment, forward
while the window stays short (an answer follows its question: "And what is the earth element? ..."), never across
a section heading — and windows never overlap.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass

import numpy as np

from indexing.vocabulary import document_ref, document_title, is_heading, segment_key, segment_ref, unit_ord
from tools.language.sentences import closes_segment
from tools.language.words import word_list, words
from tools.verification.evidence import EvidenceIndex, SuttaView

log = logging.getLogger(__name__)

WINDOW_CHARS = 420  # a window grows forward while it stays this short
REPLY_CHARS = 700  # a window ending on a question or mid-sentence runs on to its reply or its end, up to this
NEIGHBOUR_CREDIT = 0.5  # a question word in the segment before or after
CONTEXT_CREDIT = 0.4  # a question word in the section heading or the text's title
DENSE_WEIGHT = 0.6
PHRASE_CREDIT = 0.3  # times the share of the question's word pairs the segment has in the question's order
RANK_PRIOR = 0.25  # added for the first text, falling linearly to 0 for the last
SIMILE_CREDIT = 0.3  # asked about a simile or a comparison: for a window where one begins ("Suppose a couple ...")
MIN_WORD_CHARS = 3
# Words that say what kind of question it is, not what it is about: they match everywhere.
QUESTION_WORDS = frozenset(words(" ".join(word_list("question_words"))))


# A reader asking about a simile wants the simile, which Sujato opens with these words; the question's own words
# are often in its last lines ("... eating their child's flesh") or in its application, not where it begins.
_ASKS_COMPARISON = re.compile(
    r"\b(?:simile|similes|compare[sd]?|comparing|comparison|liken(?:s|ed)?|metaphor|parable|analogy|illustrat\w*"
    r"|stand[s]? for)\b", re.IGNORECASE)
_OPENS_COMPARISON = re.compile(
    r"^\W*(?:suppose\b|imagine\b|just as\b|just like\b|it[’']?s (?:just )?like\b|it is (?:just )?like\b"
    r"|it[’']?s as if\b|as if\b)", re.IGNORECASE)
_ENDS_QUESTION = re.compile(r"\?\W*$")


@dataclass(frozen=True)
class EvidenceWindow:
    """Consecutive segments of one text, with what a citation needs."""

    doc_id: str
    sutta_id: str  # "" for a Markdown note or a PDF
    title: str
    seg_ids: tuple[str, ...]
    texts: tuple[str, ...]  # English of each segment, as stored
    score: float
    focus: str  # the segment that scored best; the window was widened around it
    also: tuple[str, ...] = ()  # references of the same stock text in other suttas (deduplicated at search)
    pages: tuple[int | None, ...] = ()  # a PDF's page of each segment

    @property
    def text(self) -> str:
        return " ".join(t.strip() for t in self.texts if t.strip())

    def overlaps(self, other: EvidenceWindow) -> bool:
        return self.doc_id == other.doc_id and bool(set(self.seg_ids) & set(other.seg_ids))

    @property
    def source(self) -> str:
        """The text this window is of: its sutta ID, or a note's or PDF's title as citations write it."""
        return self.sutta_id or document_title(self.title or self.doc_id)

    @property
    def ref(self) -> str:
        if not self.sutta_id:  # a Markdown note or a PDF: its title and place, `Retreat notes ¶2`, `Talk p. 3`
            ords = [o for s in self.seg_ids if (o := unit_ord(s)) is not None]
            return document_ref(self.title or self.doc_id, ords, self.pages or [None] * len(self.seg_ids))
        start = segment_ref(self.seg_ids[0])
        if len(self.seg_ids) == 1:
            return start
        return f"{start}–{self.seg_ids[-1].partition(':')[2]}"


def question_words(question: str) -> list[str]:
    out: list[str] = []
    for token in words(question):
        if token in QUESTION_WORDS or len(token) < MIN_WORD_CHARS or token.isdigit() or token in out:
            continue
        out.append(token)
    return out


def rank_windows(
    library,
    index: EvidenceIndex,
    question: str,
    doc_ids: list[str],
    *,
    limit: int = 4,
    per_text: int | None = None,
    opening: bool = False,
) -> list[EvidenceWindow]:
    """The `limit` best windows for `question` inside `doc_ids` (in retrieval order, best text first).

    `per_text` caps the windows one text may give; `opening` adds each text's opening (who is speaking, to whom,
    where) as a candidate, for questions about the setting."""
    tokens = question_words(question)
    pairs = set(zip(tokens, tokens[1:]))
    weights = index.weights(tokens)
    total = sum(weights.values()) or 1.0
    dense = _dense_scorer(library, question)
    comparison = bool(_ASKS_COMPARISON.search(question))
    candidates: list[tuple[float, SuttaView, int]] = []
    docs = list(dict.fromkeys(doc_ids))
    for rank, doc_id in enumerate(docs):
        view = index.sutta(doc_id)
        if view is None:
            continue
        prior = RANK_PRIOR * (1 - rank / len(docs))
        title = set(words(f"{view.doc.title} {view.doc.title_pali}"))
        near = dense(doc_id, view) if dense else {}
        heading: frozenset[str] = frozenset()
        segs = view.segments
        first_text = next((i for i, s in enumerate(segs) if not is_heading(s.seg_id)), None)
        for i, seg in enumerate(segs):
            if is_heading(seg.seg_id):
                heading = seg.tokens
                continue
            own = {t for t in tokens if t in seg.tokens or t in view.named_only_in_title}
            beside = {t for t in tokens if any(t in segs[k].tokens for k in (i - 1, i + 1) if 0 <= k < len(segs))}
            context = {t for t in tokens if t in heading or t in title}
            beside -= own
            context -= own | beside
            lexical = (sum(weights[t] for t in own) + NEIGHBOUR_CREDIT * sum(weights[t] for t in beside)
                       + CONTEXT_CREDIT * sum(weights[t] for t in context)) / total
            score = lexical + DENSE_WEIGHT * near.get(i, 0.0) + prior + PHRASE_CREDIT * _in_order(pairs, seg.en, own)
            if opening and i == first_text:
                score += 1.0  # asked who, whom or where: the setting answers, whatever its words
            if comparison and _opens_comparison(view, i):
                score += SIMILE_CREDIT
            candidates.append((score, view, i))
    candidates.sort(key=lambda c: -c[0])
    chosen: list[EvidenceWindow] = []
    spans: list[tuple[str, int, int]] = []
    taken: dict[str, int] = {}
    for score, view, i in candidates:
        doc_id = view.doc.doc_id
        if per_text is not None and taken.get(doc_id, 0) >= per_text:
            continue
        lo, hi = _widen(view, i)
        if any(d == doc_id and not (hi < a or lo > b) for d, a, b in spans):
            continue
        spans.append((doc_id, lo, hi))
        taken[doc_id] = taken.get(doc_id, 0) + 1
        window = make_window(view, lo, hi, round(score, 4))
        chosen.append(dataclasses.replace(window, focus=view.segments[i].seg_id))
        if len(chosen) >= limit:
            break
    return chosen


def _in_order(pairs: set[tuple[str, str]], text: str, own: set[str]) -> float:
    """Share of the question's consecutive word pairs that follow each other in the segment too ("the origin of
    suffering" against "the origin and the cessation of suffering")."""
    if not pairs or len(own) < 2:
        return 0.0
    seq = [t for t in words(text) if t in own]
    return len(pairs & set(zip(seq, seq[1:]))) / len(pairs)


def _opens_comparison(view: SuttaView, i: int) -> bool:
    """The window segment `i` would be shown in holds the line where a simile begins."""
    lo, hi = _widen(view, i)
    return any(_OPENS_COMPARISON.match(s.en) for s in view.segments[lo : hi + 1])


def _widen(view: SuttaView, i: int) -> tuple[int, int]:
    segs = view.segments
    lo = i
    text = segs[i].en.strip()
    if i > 0 and not is_heading(segs[i - 1].seg_id) and (len(text) < 60 or text[:1].islower()):
        lo = i - 1  # a fragment ("only to be struck with a second arrow.") needs the line it continues
    hi = i
    size = sum(len(s.en) for s in segs[lo : hi + 1])
    while hi + 1 < len(segs) and not is_heading(segs[hi + 1].seg_id) and size + len(segs[hi + 1].en) <= WINDOW_CHARS:
        hi += 1
        size += len(segs[hi].en)
    # A window ends where the text comes to a point: a question with its reply ("... in what direction did it
    # go?" / "It doesn't apply ..."), a lead-in with what it leads to ("King Yama says to them," / "'Did you not
    # see an elderly woman ...'"), a sentence with its end.
    while hi + 1 < len(segs) and not is_heading(segs[hi + 1].seg_id) and size + len(segs[hi + 1].en) <= REPLY_CHARS:
        asked = _ENDS_QUESTION.search(segs[hi].en)
        if not asked and closes_segment(segs[hi].en):
            break
        if asked and _ENDS_QUESTION.search(segs[hi + 1].en):
            break  # a string of questions: their replies are another window's
        hi += 1
        size += len(segs[hi].en)
        if asked:
            break
    return lo, hi


def closeness(library, question: str, windows: list[EvidenceWindow]) -> float:
    """The highest similarity in meaning (cosine) of the question to the passages holding these windows; 0.0
    when the dense side is down."""
    dense = _dense_scorer(library, question)
    best = 0.0
    by_text: dict[str, list[EvidenceWindow]] = {}
    for w in windows:
        by_text.setdefault(w.doc_id, []).append(w)
    for doc_id, ws in by_text.items() if dense else ():
        view = library.evidence.sutta(doc_id)
        if view is None:
            continue
        sims = dense(doc_id, view)  # one read of the text's chunks for all its windows
        best = max([best, *(sims.get(view.position.get(s, -1), 0.0) for w in ws for s in w.seg_ids)])
    return best


def _dense_scorer(library, question: str):
    """(doc_id, view) -> {segment index: similarity of its chunk to the question}; None when the dense side is
    down (the ranking then rests on words alone)."""
    if not getattr(library, "dense_ready", False):
        return None
    cached = library.matrix()
    if cached is None:
        return None
    try:
        q = np.asarray(library.embed_query(question), dtype=np.float32)
    except Exception as exc:  # an embedding failure costs the dense signal, never the answer
        log.warning("question not embedded for segment ranking: %s", exc)
        return None
    q /= np.linalg.norm(q) + 1e-9
    _, row, matrix = cached

    def scores(doc_id: str, view: SuttaView) -> dict[int, float]:
        out: dict[int, float] = {}
        for chunk in library.docstore.chunks_of(doc_id):
            r = row.get(chunk.chunk_id)
            if r is None or not chunk.segment_start:
                continue
            sim = float(matrix[r] @ q)
            lo = view.position.get(chunk.segment_start, 0)
            hi = view.position.get(chunk.segment_end or chunk.segment_start, lo)
            for k in range(lo, hi + 1):
                out[k] = max(out.get(k, 0.0), sim)
        return out

    return scores


def make_window(view: SuttaView, lo: int, hi: int, score: float = 0.0) -> EvidenceWindow:
    segs = view.segments[lo : hi + 1]
    return EvidenceWindow(view.doc.doc_id, view.doc.sutta_id or "", view.doc.title, tuple(s.seg_id for s in segs),
                          tuple(s.en for s in segs), score, segs[0].seg_id, pages=tuple(s.page for s in segs))


def opening(index: EvidenceIndex, doc_id: str) -> EvidenceWindow | None:
    """The first lines of a text (its setting: who, where, to whom), as one window."""
    view = index.sutta(doc_id)
    if view is None:
        return None
    first = next((i for i, s in enumerate(view.segments) if not is_heading(s.seg_id)), None)
    if first is None:
        return None
    lo, hi = _widen(view, first)
    return make_window(view, lo, hi)


def beside(library, index: EvidenceIndex, seg_id: str, *, after: bool = True, chars: int = 2 * WINDOW_CHARS,
           limit: int = 2) -> list[EvidenceWindow]:
    """The lines right after (or before) a segment, as up to `limit` windows of about `chars` in all. At the end
    of a text it reads on into the next one of its book, so "the next verse" after Dhp 183 is Dhp 184."""
    doc_id = seg_id.partition(":")[0]
    view = index.sutta(doc_id)
    if view is None:
        return []
    at = view.position.get(seg_id)
    if at is None:  # a section number ("3") or a heading: the first segment at or after it
        key = segment_key(seg_id)
        at = next((i for i, s in enumerate(view.segments) if segment_key(s.seg_id) >= key), len(view.segments) - 1)
    out: list[EvidenceWindow] = []
    size = 0
    i = at + 1 if after else at - 1
    while len(out) < limit and size < chars:
        if not 0 <= i < len(view.segments):
            nxt = library.catalog.neighbour(view.doc.doc_id, 1 if after else -1)
            view = index.sutta(nxt) if nxt else None
            if view is None:
                break
            i = 0 if after else len(view.segments) - 1
            continue
        if is_heading(view.segments[i].seg_id):
            i += 1 if after else -1
            continue
        lo = hi = i
        length = len(view.segments[i].en)
        step = 1 if after else -1
        while True:
            j = (hi if after else lo) + step
            if not 0 <= j < len(view.segments) or is_heading(view.segments[j].seg_id):
                break
            if length + len(view.segments[j].en) > WINDOW_CHARS:
                break
            length += len(view.segments[j].en)
            lo, hi = (lo, j) if after else (j, hi)
        window = make_window(view, lo, hi)
        out.append(window)
        size += length
        i = (hi + 1) if after else (lo - 1)
    return out if after else list(reversed(out))
