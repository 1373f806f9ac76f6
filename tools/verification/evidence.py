"""Segment-level evidence search for the claim verifier: the 1–3 consecutive segments of a sutta that best cover a
claim, inside the cited sutta or (through BM25 over chunks) anywhere in the corpus.

Coverage is lexical on purpose: it is fast, explainable ("these words are not in the text") and it does not
forgive a changed name or number the way an embedding does. Embedding similarity, when a model is given, is a
second opinion for paraphrases whose words differ from the translation's.
"""

from __future__ import annotations

import logging
import math
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from indexing.stores.docstore import DocStore, DocumentRecord
from indexing.vocabulary import document_ref, is_heading, parse_uid, segment_ref, sutta_id_to_uid, unit_id, unit_ord
from tools.language.negation import without_negation_particles
from tools.language.sentences import split_at_stops
from tools.language.speakers import BUDDHA, BUDDHA_NAMED, UNNAMED, who_speaks
from tools.language.words import fold, pattern, tokenize, word_list, words
from tools.verification.claim_checks import GENERIC, names

log = logging.getLogger(__name__)

# Words that frame a claim ("MN 20 says that ...") rather than state it; they never count as missing.
FRAMING = frozenset(tokenize(" ".join(word_list("framing")), drop_stopwords=False))
MAX_WINDOW = 3  # segments; a long claim (a list, a verse) may span a few more, see `_max_window`
WINDOW_PENALTY = 0.02  # per extra segment: prefer the tightest window that covers the claim


def claim_tokens(text: str) -> list[str]:
    """The words of a claim that the lines must hold: not its framing ("says", "describes"), numbers, or the words
    that only make it negative."""
    seen: dict[str, None] = {}
    for t in words(without_negation_particles(text)):  # polarity is the negation check's
        if t not in FRAMING and not t.isdigit() and len(t) > 1:
            seen.setdefault(t, None)
    return list(seen)


def _prefix(token: str) -> str | None:
    return token[:5] if len(token) >= 6 else None


@dataclass
class SegmentView:
    seg_id: str
    en: str
    tokens: frozenset[str]
    prefixes: frozenset[str]
    page: int | None = None  # a PDF's page
    # words the line only offers as a question's alternatives ("in what direction did it go — east, south, west, or
    # north?"), never states: the text does not say the fire went west
    offered: frozenset[str] = frozenset()


# Alternatives: "east, south, west, or north", "permanent or impermanent"; a question's, when a "?" closes them
_OR_LIST = r"((?:[\w’'-]+,\s+)*[\w’'-]+,?\s+or\s+[\w’'-]+)"
_ALTERNATIVES = re.compile(_OR_LIST + r"\s*\?")


def alternatives_in(text: str) -> frozenset[str]:
    """The words a sentence itself gives as alternatives ("it asks whether the fire went east, south, west, or
    north"): reporting a question's alternatives, it may take them from the question."""
    return frozenset(t for m in re.finditer(_OR_LIST, text) for t in words(m.group(1)))


def offered_only(text: str) -> frozenset[str]:
    """The words a line offers only as the alternatives of a question it asks, not in any sentence that states
    something (`SegmentView.offered`)."""
    sentences = split_at_stops(text, stops=".!?’”\"")
    offered = {t for s in sentences for m in _ALTERNATIVES.finditer(s) for t in words(m.group(1))}
    stated = {t for s in sentences if not s.rstrip("’”\" ").endswith("?") for t in words(s)}
    return frozenset(offered - stated)


SETTING_LINES = 4  # a text's opening lines read for where it takes place
_SETTING = re.compile(pattern("text_setting").pattern, re.IGNORECASE)
_OWNER = re.compile(r"\b[\w-]+[’']s\b")


@dataclass
class SuttaView:
    doc: DocumentRecord
    segments: list[SegmentView]
    tokens: frozenset[str]  # every token of the sutta and its title
    prefixes: frozenset[str]
    lowercase: frozenset[str]  # folded words the sutta writes in lowercase: not names
    position: dict[str, int] = field(default_factory=dict)  # seg_id -> index
    speakers: list[str | None] | None = None  # who speaks each line, once read (EvidenceIndex.speakers)
    people: dict[str, str] = field(default_factory=dict)  # the names it speaks of, folded -> as written

    @property
    def sutta_id(self) -> str:
        return self.doc.sutta_id or self.doc.doc_id

    @cached_property
    def setting(self) -> str:
        """Where the text takes place, as its opening says ("At one time the Buddha was staying in the Great Wood
        near Vesālī"), less the owners of a park or grove ("Anāthapiṇḍika’s monastery"), who are people; "" when the
        opening does not say. Each of its lines is said there: "the monks in Vesālī took their own lives" is not
        about somewhere else because the lines that tell it are far from the one that names Vesālī."""
        lines = [s.en for s in self.segments if not is_heading(s.seg_id)][:SETTING_LINES]
        opening = next((line for line in lines if _SETTING.search(line)), "")
        return _OWNER.sub(" ", opening)

    @cached_property
    def title_names(self) -> frozenset[str]:
        """The names in the title ("Uttamā", "Advice to Sigālaka", "With Kaccānagotta"): the person the text is by,
        about or addressed to, so present in each of its lines. Not its other words: "mountain" in "The Simile of
        the Mountain" is found only where the text speaks of it."""
        # a word as the lines' lowercase words are read: "Child’s" is "child", not a name the text never writes
        return frozenset(t for word in re.findall(r"\w[\w-]*", self.doc.title or "")
                         if word[:1].isupper() and fold(word) not in self.lowercase and fold(word) not in GENERIC
                         for t in words(word))

    @cached_property
    def named_only_in_title(self) -> frozenset[str]:
        """The names in the title that the lines never use: the person the verses are by ("Uttamā"), held by each
        line. A name the lines use ("Moggallāna" in "With Moggallāna the Accountant") is found where they do. A
        name is a title word the Pali title has too, where the other words are translated ("Uttamā" of
        "Uttamātherīgāthā"; not "Accountant")."""
        pali = fold(self.doc.title_pali or "")
        kept = {t for word in re.findall(r"\w[\w-]*", self.doc.title or "") if len(word) > 2 and fold(word) in pali
                for t in words(word)}
        body = [s.tokens for s in self.segments if not is_heading(s.seg_id)]
        return frozenset(t for t in self.title_names & kept if not any(t in tokens for tokens in body))

    @property
    def is_suttacentral(self) -> bool:
        # Markdown notes and PDFs have no sutta ID and no segment numbers: cited by title and place
        return bool(self.doc.sutta_id)

    def document_ref(self, lo: int, hi: int) -> str:
        """A Markdown note's or a PDF's segments lo..hi as a citation: `Retreat notes ¶2–3`, `Dhamma talk p. 3`."""
        segs = self.segments[lo : hi + 1]
        ords = [o for s in segs if (o := unit_ord(s.seg_id)) is not None]
        return document_ref(self.doc.title or self.doc.doc_id, ords, [s.page for s in segs])

    @property
    def name(self) -> str:
        return self.doc.sutta_id or self.doc.title or self.doc.doc_id


@dataclass
class Window:
    sutta: SuttaView
    lo: int
    hi: int  # inclusive
    coverage: float
    matched: frozenset[str]

    @property
    def text(self) -> str:
        return " ".join(s.en.strip() for s in self.sutta.segments[self.lo : self.hi + 1])

    @property
    def seg_start(self) -> str:
        return self.sutta.segments[self.lo].seg_id

    @property
    def seg_end(self) -> str:
        return self.sutta.segments[self.hi].seg_id

    @property
    def ref(self) -> str:
        if not self.sutta.is_suttacentral:
            return self.sutta.document_ref(self.lo, self.hi)
        start = segment_ref(self.seg_start) if ":" in self.seg_start else self.sutta.sutta_id
        if self.hi == self.lo:
            return start
        return f"{start}–{self.seg_end.partition(':')[2]}"

    def region(self, margin: int) -> str:
        lo, hi = max(0, self.lo - margin), min(len(self.sutta.segments), self.hi + margin + 1)
        return " ".join(s.en.strip() for s in self.sutta.segments[lo:hi])


def _max_window(tokens: list[str]) -> int:
    return MAX_WINDOW + len(tokens) // 8


def matches_any(token: str, tokens: frozenset[str] | set[str]) -> bool:
    """`token` is in `tokens` up to the stemmer's blind spots (silent e, shared 5-letter prefix of long words)."""
    return _matches(token, tokens, {p for p in map(_prefix, tokens) if p})


def matches_segment(token: str, segment: SegmentView) -> bool:
    """Whether a segment holds the claim's word, as the windows count it."""
    return _matches(token, segment.tokens, segment.prefixes)


def states_in_segment(token: str, segment: SegmentView, alternatives: frozenset[str] = frozenset()) -> bool:
    """Whether a segment holds the claim's word other than as a question's offered alternative (or as one, where the
    claim too gives it as an alternative: `alternatives`)."""
    return (token not in segment.offered or token in alternatives) and matches_segment(token, segment)


def matches_any_of(token: str, tokens: frozenset[str] | set[str], prefixes: frozenset[str] | set[str]) -> bool:
    """`matches_any` with the prefixes of `tokens` already at hand (a SuttaView's)."""
    return _matches(token, tokens, prefixes)


def _matches(token: str, tokens: frozenset[str] | set[str], prefixes: frozenset[str] | set[str]) -> bool:
    if token in tokens:
        return True
    # The light stemmer strips "-ing" but keeps a silent "e": "giving" is "giv", "give" stays "give".
    if len(token) >= 3 and (token + "e" in tokens or (token.endswith("e") and token[:-1] in tokens)):
        return True
    # Nor a doubled consonant: "setting" is "sett", "stopped" "stopp"; "set" and "stop" stay. Not l, s or z, which
    # double in the word itself ("fall", "kiss").
    if len(token) >= 3 and token[-1] not in "lsz" and token[-1] not in "aeiouy" and (
            token + token[-1] in tokens or (len(token) >= 4 and token[-1] == token[-2] and token[:-1] in tokens)):
        return True
    # Nor "-ied" back to "-y": "cried" is "cri", "carried" "carri"; "cry" and "carry" stay.
    if len(token) >= 3 and ((token.endswith("i") and token[:-1] + "y" in tokens)
                            or (token.endswith("y") and token[:-1] + "i" in tokens)):
        return True
    p = _prefix(token)
    return p is not None and p in prefixes


class EvidenceIndex:
    """Per-sutta token views (cached) and window search over them."""

    def __init__(self, docstore: DocStore, bm25=None, cache_size: int = 256,
                 lowercase: Callable[[], frozenset[str]] | None = None):
        self.docstore = docstore
        self.bm25 = bm25
        # the library's lowercase words (Library.lowercase_words): a capitalised word outside them is a name
        self._lowercase = lowercase
        self._suttas: OrderedDict[str, SuttaView | None] = OrderedDict()
        self._cache_size = cache_size
        self._idf: dict[str, float] = {}
        self._by_sutta_id: dict[str, str] | None = None
        self._documents: list[DocumentRecord] | None = None  # the notes and PDFs, for references by title

    # ---- documents -----------------------------------------------------------------------------------------
    def resolve(self, sutta_id: str) -> DocumentRecord | None:
        """The document of a display ID, including texts inside a range uid (`SN 12.105` in `sn12.104-114`)."""
        doc = self.docstore.document_by_sutta_id(sutta_id)
        if doc is not None:
            return doc
        try:
            wanted = parse_uid(sutta_id_to_uid(sutta_id))
        except ValueError:
            return None
        if wanted is None or not wanted.info.ranges:
            return None
        if self._by_sutta_id is None:
            self._by_sutta_id = {d.doc_id: d.doc_id for d in self.docstore.documents() if "@" not in d.doc_id}
        lo, _ = wanted.span()
        for doc_id in self._by_sutta_id:
            held = parse_uid(doc_id)
            if held is not None and (held.book, held.group) == (wanted.book, wanted.group) and \
                    held.span()[0] <= lo <= held.span()[1]:
                return self.docstore.document(doc_id)
        return None

    def resolve_document(self, ref, among: set[str] | None = None) -> DocumentRecord | None:
        """The note or PDF a reference names by title (`tools.references.CitationRef`): one of `among` (the turn's
        documents) when given, else any in the library; the first with the cited place when titles repeat."""
        if among is not None:
            docs = [d for doc_id in sorted(among) if (d := self.docstore.document(doc_id)) is not None]
        else:
            if self._documents is None:
                self._documents = [d for d in self.docstore.documents() if not d.sutta_id]
            docs = self._documents
        titled = [d for d in docs if not d.sutta_id and ref.names_document(d.title)]
        for doc in titled:
            view = self.sutta(doc.doc_id)
            if view is not None and any(ref.covers(unit_ord(s.seg_id) or 0, s.page) for s in view.segments):
                return doc
        return titled[0] if titled else None

    def sutta(self, doc_id: str) -> SuttaView | None:
        if doc_id in self._suttas:
            self._suttas.move_to_end(doc_id)
            return self._suttas[doc_id]
        doc = self.docstore.document(doc_id)
        view = self._build(doc) if doc is not None else None
        self._suttas[doc_id] = view
        if len(self._suttas) > self._cache_size:
            self._suttas.popitem(last=False)
        return view

    def _build(self, doc: DocumentRecord) -> SuttaView | None:
        segs = []
        all_tokens: set[str] = set(words(f"{doc.title} {doc.title_pali}"))
        lowercase: set[str] = set()
        for rec in self.docstore.segments(doc.doc_id):
            if not rec.en or not rec.en.strip():
                continue
            toks = frozenset(words(rec.en))
            segs.append(SegmentView(rec.seg_id or unit_id(doc.doc_id, rec.ord), rec.en, toks,
                                    frozenset(p for p in map(_prefix, toks) if p), rec.page, offered_only(rec.en)))
            all_tokens |= toks
            lowercase.update(fold(w) for w in re.findall(r"(?<![\w’'])[a-zāīūṅñṭḍṇḷṁṃ][\wāīūṅñṭḍṇḷṁṃ]+", rec.en))
        if not segs:
            return None
        return SuttaView(doc, segs, frozenset(all_tokens), frozenset(p for p in map(_prefix, all_tokens) if p),
                         frozenset(lowercase), {s.seg_id: i for i, s in enumerate(segs)})

    def speakers(self, view: SuttaView) -> list[str | None]:
        """Who speaks each of the text's lines, where the text says so (tools/language/speakers.py)."""
        if view.speakers is None:
            lines = [s.en for s in view.segments]
            lowercase = view.lowercase | (self._lowercase() if self._lowercase is not None else frozenset())
            view.people = names(" ".join(lines), lowercase)
            view.speakers = who_speaks(lines, frozenset(view.people))
        return view.speakers

    def voices(self, doc_id: str, seg_ids: Sequence[str]) -> list[str | None]:
        """Who says each of the lines `seg_ids`, named as the text writes it ("the Buddha", "Pasenadi"); None for
        narration and for a speaker the text does not name."""
        view = self.sutta(doc_id)
        if view is None:
            return [None] * len(seg_ids)
        who = self.speakers(view)
        out: list[str | None] = []
        for seg_id in seg_ids:
            person = who[view.position[seg_id]] if seg_id in view.position else None
            if not person or person.startswith(UNNAMED):
                out.append(None)
            else:
                out.append(BUDDHA_NAMED if person == BUDDHA else view.people.get(person))
        return out

    # ---- weights -------------------------------------------------------------------------------------------
    def weights(self, tokens: list[str]) -> dict[str, float]:
        """Rarer words weigh more (IDF over the BM25 chunk index when there is one)."""
        return {t: self._idf_of(t) for t in tokens}

    def _idf_of(self, token: str) -> float:
        if token in self._idf:
            return self._idf[token]
        value = 1.0
        df, n = self.bm25.document_frequency(token) if self.bm25 is not None else (0, 0)
        if n:
            # Unknown to the corpus (df 0): likely an invented detail; weigh like a rare word.
            value = math.log(1 + (n - df + 0.5) / (df + 0.5))
            value = min(max(value / 3.0, 0.3), 3.0)
        self._idf[token] = value
        return value

    # ---- search --------------------------------------------------------------------------------------------
    def best_windows(self, view: SuttaView, tokens: list[str], weights: dict[str, float], top: int = 3,
                     lo: int = 0, hi: int | None = None) -> list[Window]:
        if not tokens:
            return []
        total = sum(weights[t] for t in tokens) or 1.0
        segs = view.segments[lo : hi if hi is not None else len(view.segments)]
        hits = [frozenset(t for t in tokens if _matches(t, s.tokens, s.prefixes)) for s in segs]
        scored: list[tuple[float, int, int, frozenset[str]]] = []
        for i in range(len(segs)):
            if not hits[i]:
                continue
            acc: frozenset[str] = frozenset()
            for j in range(i, min(i + _max_window(tokens), len(segs))):
                acc = acc | hits[j]
                if not hits[j] and j > i:
                    break
                cov = sum(weights[t] for t in acc) / total - WINDOW_PENALTY * (j - i)
                scored.append((cov, lo + i, lo + j, acc))
        scored.sort(key=lambda x: -x[0])
        out: list[Window] = []
        for cov, a, b, acc in scored:
            if any(not (b < w.lo or a > w.hi) for w in out):
                continue
            out.append(Window(view, a, b, max(cov, 0.0), acc))
            if len(out) >= top:
                break
        return out

    def sutta_coverage(self, view: SuttaView, tokens: list[str], weights: dict[str, float]) -> tuple[float, list[str]]:
        total = sum(weights[t] for t in tokens) or 1.0
        missing = [t for t in tokens if not _matches(t, view.tokens, view.prefixes)]
        return 1.0 - sum(weights[t] for t in missing) / total, missing

    def search_corpus(self, text: str, tokens: list[str], weights: dict[str, float], exclude: set[str],
                      k: int = 12) -> list[Window]:
        """Best windows in the chunks BM25 ranks highest for the claim, outside the `exclude` doc_ids."""
        if self.bm25 is None or not tokens:
            return []
        try:
            hits = self.bm25.search(" ".join(tokens), k=k + 8)
        except Exception:
            log.warning("BM25 search failed while locating a claim", exc_info=True)
            return []
        chunks = self.docstore.chunks([h.chunk_id for h in hits])
        found: list[Window] = []
        for chunk in chunks:
            if chunk.doc_id in exclude or not chunk.segment_start:
                continue
            view = self.sutta(chunk.doc_id)
            if view is None:
                continue
            lo = view.position.get(chunk.segment_start, 0)
            hi = view.position.get(chunk.segment_end or chunk.segment_start, len(view.segments) - 1) + 1
            # A little margin: a claim may straddle the chunk boundary.
            found.extend(self.best_windows(view, tokens, weights, top=1, lo=max(0, lo - 2),
                                           hi=min(len(view.segments), hi + 2)))
            if len(found) >= k:
                break
        found.sort(key=lambda w: -w.coverage)
        return found


def _bounds(view: SuttaView, local: str) -> tuple[int, int] | None:
    """The positions of the first and last segment `local` names: `3.1` one segment, `3` its section's all."""
    uid = view.doc.doc_id
    exact = view.position.get(f"{uid}:{local}")
    if exact is not None:
        return exact, exact
    prefix = f"{uid}:{local}."
    found = [i for seg_id, i in view.position.items() if seg_id.startswith(prefix)]
    return (min(found), max(found)) if found else None


def cited_span(view: SuttaView, start: str | None, end: str | None) -> tuple[int, int] | None:
    """The positions of the first and last segment a citation's range names (`3.1`–`3.4`; a section `3` is all its
    segments); None when it names none, or the whole text."""
    first = _bounds(view, start) if start else None
    last = _bounds(view, end) if end else first
    if first is None or last is None:
        return None
    return min(first[0], last[0]), max(first[1], last[1])


def segment_exists(view: SuttaView, local: str) -> bool:
    """`3.1` names a segment; `3` names a section (any segment `3.x`)."""
    return _bounds(view, local) is not None


class EmbeddingScorer:
    """Cosine similarity between claim parts and evidence windows with one batched call per verification."""

    def __init__(self, embed_model, cache_size: int = 4096):
        self.model = embed_model
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def similarities(self, pairs: list[tuple[str, str]]) -> list[float]:
        texts = {t for pair in pairs for t in pair if t not in self._cache}
        if texts:
            ordered = sorted(texts)
            vectors = self.model.get_text_embedding_batch(ordered)
            for t, v in zip(ordered, vectors):
                arr = np.asarray(v, dtype=np.float32)
                self._cache[t] = arr / (np.linalg.norm(arr) or 1.0)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return [float(self._cache[a] @ self._cache[b]) for a, b in pairs]
