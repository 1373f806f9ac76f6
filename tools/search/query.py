"""What a question or search query says about itself, worked out once: the suttas it names (by ID, title or
nickname, resolved to doc IDs), the collections and basket it names in words (or leans to: "which offence…"), the
kind of text it asks for (a discourse or verses), what it is about once those are taken out,
and the texts BM25 and the dense retriever search with.

The chat's planner reads the named suttas, collections and topic; the retriever the pinned and boosted documents
and the search texts. Both read the same analysis, so an ID found in the question reaches the lookup as doc IDs
instead of being pasted into a query string and parsed again.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from indexing.vocabulary import sutta_id_to_uid
from tools.errors import UnknownReferenceError
from tools.language.words import STOPWORDS, fold, word_set, written_words
from tools.references import (
    Reference,
    asks_which_text,
    basket_hint,
    collection_hints,
    find_references,
    genre_hint,
    parse_reference,
)
from tools.search.aliases import STRONG, AliasResolution
from tools.search.names import names_a_collection

log = logging.getLogger(__name__)

MAX_PINNED_PER_NAME = 3  # a name shared by more suttas than this only leans the ranking towards them

# Words that only say "this is a question about a sutta"; as BM25 terms they match every chunk header.
QUERY_NOISE = word_set("query_noise")


@dataclass
class NamedSutta:
    """A sutta the query names: by ID, or by a title or nickname that points at it and nothing else."""

    sutta_id: str  # canonical: "MN 21"
    written: str  # as it appears in the query: "mn21", "the Fire Sermon"
    source: Literal["reference", "alias"]
    reference: Reference | None  # the whole sutta (a cited segment is the lookup's business, not the plan's)
    doc_ids: list[str] = field(default_factory=list)  # what the index holds for it
    error: str | None = None  # why the index holds nothing: "There is no MN 175: MN has 1–152. …"


@dataclass
class QueryAnalysis:
    text: str
    # IDs in order of appearance (each sutta once), then every confident name (a sutta named twice is listed twice)
    named: list[NamedSutta] = field(default_factory=list)
    pinned_docs: list[str] = field(default_factory=list)  # their passages go first in a search
    boosted_docs: dict[str, float] = field(default_factory=dict)  # less certain title matches, by doc ID
    collections: list[str] = field(default_factory=list)  # collections named in words ("the Middle Discourses")
    topic: str = ""  # the text without IDs and names: what it is about
    bm25_text: str = ""
    dense_text: str = ""
    notes: list[str] = field(default_factory=list)  # IDs the index does not hold, what named a sutta and how
    # set by tools.search.bridges for a search: BM25 tokens with weights (bridged words count less), Pali words' forms
    bm25_weights: dict[str, float] = field(default_factory=dict)
    pali_weights: dict[str, float] = field(default_factory=dict)

    @property
    def bm25_query(self) -> str | dict[str, float]:
        return self.bm25_weights or self.bm25_text
    basket: str | None = None  # the basket the words point at ("offence" -> vinaya)
    basket_explicit: bool = False  # it is named ("in the Vinaya"): search only there
    genre: str | None = None  # "prose" (which discourse…) or "verse" (whose verses…): the kind of text asked for
    asks_which_text: bool = False  # "Which sutta …", "Where does the Buddha say …": a text to find, not to read
    # Titles written as titles ("the Lotus Sutra", "Diamond Sūtra") that name nothing the library holds: the
    # question's premise lies outside it, and the closest canonical passages must not be passed off as the answer.
    unknown_titles: list[str] = field(default_factory=list)

    def named_by(self, source: str) -> list[NamedSutta]:
        return [n for n in self.named if n.source == source]


def analyse_query(library, text: str, *, use_names: bool = True, pinned: Sequence[str] = ()) -> QueryAnalysis:
    """The analysis of `text` against what the library holds. `pinned`: doc IDs the caller has already resolved,
    first among the pinned documents. `use_names=False` ignores IDs and names (a search for the words alone)."""
    refs = find_references(text) if use_names else []
    analysis = QueryAnalysis(text, pinned_docs=list(dict.fromkeys(pinned)))
    for ref in refs:
        whole = dataclasses.replace(ref, segment=None)
        named = NamedSutta(ref.sutta_id, ref.text, "reference", whole)
        try:
            named.doc_ids = library.catalog.resolve(whole)
        except UnknownReferenceError as exc:
            named.error = str(exc)
            analysis.notes.append(named.error)
        if all(n.sutta_id != named.sutta_id for n in analysis.named):
            analysis.named.append(named)
        analysis.pinned_docs.extend(d for d in named.doc_ids if d not in analysis.pinned_docs)
    stripped = text
    for ref in sorted(refs, key=lambda r: -r.start):
        stripped = stripped[: ref.start] + " " + stripped[ref.end:]

    aliases: dict[str, str] = {}
    if use_names:
        resolution = _resolve_names(library, stripped)
        aliases = _named_aliases(resolution)
        _pin_and_boost(library, resolution, analysis)
    analysis.named.extend(_alias(library, sutta_id, written) for written, sutta_id in aliases.items())

    if use_names:
        analysis.unknown_titles = [t for t in _titles(stripped) if not _known_title(library, t)]
    analysis.collections = collection_hints(stripped)
    analysis.basket, analysis.basket_explicit = basket_hint(stripped)
    analysis.genre = genre_hint(stripped)
    analysis.asks_which_text = asks_which_text(stripped)
    topic = stripped
    for written in aliases:
        topic = re.sub(re.escape(written), " ", topic, flags=re.IGNORECASE)
    analysis.topic = re.sub(r"\s+", " ", topic).strip(" ?.,;:")
    words = written_words(stripped)
    analysis.bm25_text = " ".join(w for w in words if fold(w) not in QUERY_NOISE and fold(w) not in STOPWORDS) \
        or stripped
    analysis.dense_text = stripped.strip() or text
    return analysis


_TITLE = re.compile(r"\b((?:[A-Z][\w’'-]*\s+){1,4})(Sutra|Sūtra|Sutta|Suttanta)\b")


def _titles(text: str) -> list[str]:
    """Capitalised names followed by "Sutra" or "Sutta": how readers write the title of a text."""
    return [f"{m.group(1).strip()} {m.group(2)}" for m in _TITLE.finditer(text)
            if fold(m.group(1).split()[0]) not in STOPWORDS | {"which", "what", "the"}]


def _known_title(library, title: str) -> bool:
    # "Explain Kasibhāradvāja Sutta": a capitalised verb before the name is not part of it; any tail that names
    # a text the library holds makes the title known
    words = title.split()
    return any(_resolve_names(library, " ".join(words[i:])).candidates for i in range(len(words) - 1))


def _resolve_names(library, text: str) -> AliasResolution:
    try:
        resolution = library.aliases.resolve(text)
    except Exception as exc:  # the alias index is a hint: a broken one must not fail a question or a search
        log.warning("alias resolution failed: %s", exc)
        return AliasResolution(text)
    # "What does the Dhammapada say …" names the book, not AN 4.29, whose Pali title is Dhammapadasutta: a
    # book's name without "Sutta" is the book (the references' collection hints act on it)
    resolution.matches = [m for m in resolution.matches if not names_a_collection(m.text)]
    return resolution


def _named_aliases(resolution: AliasResolution) -> dict[str, str]:
    """{name as written: sutta ID} for names that point at one sutta with a strong score: the user named it."""
    strong = set(resolution.strong_suttas())
    out: dict[str, str] = {}
    for match in resolution.matches:
        if match.ambiguous:
            continue
        for cand in match.candidates:
            if cand.sutta_id in strong:
                out.setdefault(match.text, cand.sutta_id)
    return out


def _pin_and_boost(library, resolution: AliasResolution, analysis: QueryAnalysis) -> None:
    # A confident name of one to three suttas is the user naming them; a name many suttas share ("Metta Sutta")
    # or an uncued title only leans the ranking towards them.
    firm = {c.sutta_id for m in resolution.matches if m.score >= STRONG and len(m.candidates) <= MAX_PINNED_PER_NAME
            for c in m.candidates}
    for cand in resolution.candidates:
        doc_id = doc_of(library, cand.sutta_id)
        if doc_id is None or doc_id in analysis.pinned_docs:
            continue
        if cand.sutta_id in firm:
            analysis.pinned_docs.append(doc_id)
        else:
            analysis.boosted_docs[doc_id] = max(analysis.boosted_docs.get(doc_id, 0.0), cand.score / 100)
        # the trace says what named the sutta and how, so a wrong name is visible as such
        analysis.notes.append(f"{cand.matched!r} names {cand.sutta_id} ({cand.how or cand.source}, {cand.score:.0f})")


def named_sutta(library, sutta_id: str, written: str = "") -> NamedSutta:
    """A canonical sutta ID (from memory, say) resolved to its documents, as if the query had named it."""
    named = _alias(library, sutta_id, written or sutta_id)
    named.source = "reference"
    return named


def _alias(library, sutta_id: str, written: str) -> NamedSutta:
    reference = parse_reference(sutta_id)
    named = NamedSutta(sutta_id, written, "alias", reference)
    if reference is not None:
        try:
            named.doc_ids = library.catalog.resolve(reference)
        except UnknownReferenceError as exc:
            named.error = str(exc)
    return named


def doc_of(library, sutta_id: str) -> str | None:
    """The doc ID holding a canonical sutta ID: its own document, or the range document it lives in."""
    try:
        uid = sutta_id_to_uid(sutta_id)
    except ValueError:
        return None
    if library.docstore.document(uid) is not None:
        return uid
    doc = library.docstore.document_by_sutta_id(sutta_id)
    if doc is not None:
        return doc.doc_id
    refs = find_references(sutta_id)
    if refs:
        try:
            return library.catalog.resolve(refs[0])[0]
        except UnknownReferenceError:
            return None
    return None
