"""Sutta cards: one short record per document saying what the text is as a whole, built at ingest.

A reader often asks about a sutta as a whole ("the discourse on the worldly conditions", "the one where a dog is
tied to a post") in words no single passage repeats; the words are in its title, its blurb, its well-known names,
its section headings or its first lines. A card gathers those fields:

- title (English and Pali) — the document's own, or for a text inside a range file that carries its title as a
  `N. Title` heading (AN 2.1–10), that heading; never the name of the chapter the file is filed under;
- names — well-known names from the nicknames CSV and the other-translations titles table, and the data's own;
- chapter — the saṁyutta / nipāta / vagga it sits in; headings — its section headings;
- blurb — SuttaCentral's one-paragraph summary; opening — its first lines in English and Pali, stock lines
  ("So I have heard", "At one time the Buddha was staying near Sāvatthī …") skipped, found as lines that open
  many documents, so the rule holds for any book the docstore holds.

Cards are indexed twice: BM25 over field-weighted tokens (a field counts by repetition, as BM25F-style weighting
does: titles and names weigh most) and densely (two vectors per card, the card and its name, in their own Chroma
collection). Both are kept incrementally: each vector is re-embedded only when the text it embeds changes (a digest
of text and model in its metadata); the BM25 side is rebuilt whole when anything changed (a few thousand short
texts, well under a second).
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from indexing.embeddings import embed_model_name, embed_texts  # the same longest-first batching as chunks
from indexing.settings import ScholarSettings
from indexing.stores.bm25_store import TOKENIZER_ID, BM25Store
from indexing.stores.chroma_store import ChromaStore
from indexing.stores.docstore import DocStore, DocumentRecord, SegmentRecord
from indexing.text import fold, split_at_stops

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

log = logging.getLogger(__name__)

CARD_VERSION = "cards-v3"
OPENING_SEGMENTS = 40  # segments read per document to find its first non-stock lines
OPENING_CHARS = 600
DENSE_CHARS = 1400  # MiniLM reads ~256 word pieces; what lies beyond is cut by the model anyway
STOCK_MIN_DOCS = 5  # a line opening at least this many documents is stock, not what this text is about
# How many times each field's tokens count in the card's BM25 document (field weights by repetition).
FIELD_WEIGHTS = {"title": 3, "title_pali": 2, "names": 3, "chapter": 1, "headings": 1, "blurb": 2, "opening": 1}
CARDS_DIR = "cards"
CARD_EMBED_GROUP = 512  # card vectors embedded and stored together: a stop loses at most one group
NAME_SUFFIX = "#name"  # the id of a card's name vector: `mn20#name`

_NUMBERED = re.compile(r"^\s*\d+(?:[.–-]\d+)*\.?\s*")
_VAGGA = re.compile(r"vagg[ao]?$|peyyāla", re.IGNORECASE)


@dataclass
class SuttaCard:
    doc_id: str
    sutta_id: str
    title: str = ""
    title_pali: str = ""
    names: list[str] = field(default_factory=list)
    chapter: str = ""
    headings: list[str] = field(default_factory=list)
    blurb: str = ""
    opening: str = ""
    opening_pali: str = ""

    def dense_text(self) -> str:
        """What is embedded: the card as one short paragraph, most telling fields first."""
        head = self.title or self.sutta_id
        if self.title_pali:
            head += f" ({self.title_pali})"
        parts = [head]
        if self.names:
            parts.append("Also known as: " + "; ".join(self.names) + ".")
        for text in (self.blurb, self.chapter, "; ".join(self.headings), self.opening):
            if text:
                parts.append(text if text.endswith((".", "?", "!", "”", "’")) else text + ".")
        return " ".join(parts)[:DENSE_CHARS]

    def name_text(self) -> str:
        """What the text is called, embedded on its own: a title is compared best with a title ("A Lotus Pond"
        with "The Bathing Tank"). A text without a title of its own goes by its first line, which readers and
        other translators title it from ("as quick to change as the mind" -> "Quick to Reverse Itself"). Other
        names (nicknames, other translations' titles) stay out: they are matched exactly and word by word, and
        a dozen of them run together make a vector like none of them."""
        names = [n for n in (self.title, self.title_pali) if n]
        if self.title:
            return "; ".join(names)
        first = split_at_stops(self.opening, ".?!;:—", maxsplit=1)[0] if self.opening else ""
        return "; ".join([first[:200], *names]) if first else self.sutta_id

    def bm25_text(self) -> str:
        fields = {"title": self.title, "title_pali": self.title_pali, "names": " ; ".join(self.names),
                  "chapter": self.chapter, "headings": " ; ".join(self.headings), "blurb": self.blurb,
                  "opening": self.opening}
        return " ".join(" ".join([text] * FIELD_WEIGHTS[name]) for name, text in fields.items() if text)

    def digest(self) -> str:
        data = json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)
        return hashlib.sha1(f"{CARD_VERSION}\n{data}".encode()).hexdigest()

    @classmethod
    def from_dict(cls, raw: dict) -> SuttaCard:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in raw.items() if k in known})


# ---- names from our tables ---------------------------------------------------------------------------------
def name_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a names CSV (`alias,sutta_id,…`). Lines starting with `#` before or between rows are comments:
    a table's header says where its rows come from and under what licence."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(line for line in fh if not line.startswith("#")))


def load_names(paths: Sequence[Path | None]) -> dict[str, list[str]]:
    """sutta_id -> names, from CSV files with `alias,sutta_id` columns (the nicknames CSV, the titles table)."""
    names: dict[str, list[str]] = {}
    for path in paths:
        if not path or not Path(path).exists():
            continue
        for row in name_rows(Path(path)):
            alias, sid = (row.get("alias") or "").strip(), (row.get("sutta_id") or "").strip()
            if alias and sid and alias not in names.setdefault(sid, []):
                names[sid].append(alias)
    return names


# ---- building -----------------------------------------------------------------------------------------------
def _clean_heading(text: str) -> str:
    return _NUMBERED.sub("", text).strip()


def _chapter(doc: DocumentRecord) -> tuple[str, str]:
    """(the chapter line, the text's own title among its headers or ""). A text inside a range file has no
    headers of its own: every header there names the file's chapter or its first text, never this one."""
    values = list(doc.headers.values())
    own = [v for k, v in doc.headers.items() if k.partition(":")[0] == doc.doc_id]
    own_title = own[-1] if len(own) >= 2 else ""
    # the first header is the collection and number ("Linked Discourses 1.20"): not a chapter
    parts = [doc.group_title, *(_clean_heading(v) for v in values[1:] if v != own_title)]
    seen: list[str] = []
    for p in parts:
        if p and p not in seen:
            seen.append(p)
    return " · ".join(seen), own_title


def build_card(doc: DocumentRecord, segments: list[SegmentRecord], stock: set[str],
               names: dict[str, list[str]]) -> SuttaCard:
    """The card of one document from its record, its first segments and section headings (in order)."""
    chapter, own_title = _chapter(doc)
    title = doc.title if doc.title == own_title or doc.title not in doc.headers.values() else ""
    title_pali = doc.title_pali if doc.title_pali and not _VAGGA.search(doc.title_pali.strip()) else ""
    headings: list[str] = []
    lines: list[SegmentRecord] = []
    for seg in segments:
        local = (seg.seg_id or "").partition(":")[2]
        if local.endswith(".0"):
            text = _clean_heading(seg.en)
            if not text or text.replace("–", "").isdigit():
                continue
            if not title and not headings and not lines and seg.en[:1].isdigit():
                # `5. Learned for Myself` / `5. Upaññātasutta`: a text in a range file carrying its own title
                title, title_pali = text, title_pali or _clean_heading(seg.pali)
                continue
            if text not in headings and text != title:
                headings.append(text)
        elif seg.ord < OPENING_SEGMENTS:
            lines.append(seg)
    opening, opening_pali = [], []
    size = 0
    for seg in lines:
        if _stock_key(seg.en) in stock or size >= OPENING_CHARS:
            continue
        opening.append(seg.en.strip())
        opening_pali.append(seg.pali.strip())
        size += len(seg.en)
    sid = doc.sutta_id or doc.doc_id
    return SuttaCard(
        doc_id=doc.doc_id, sutta_id=sid, title=title, title_pali=title_pali,
        names=[n for n in names.get(sid, []) if fold(n) != fold(title)],
        chapter=chapter, headings=headings[:12], blurb=doc.blurb.strip(),
        opening=" ".join(opening)[: OPENING_CHARS + 200], opening_pali=" ".join(p for p in opening_pali if p),
    )


def _stock_key(text: str) -> str:
    # equality of whole lines only, over 60k segments: the cheapest normalisation that makes stock lines equal
    return text.strip().lower()


def build_cards(docstore: DocStore, names: dict[str, list[str]]) -> list[SuttaCard]:
    """Every document's card. Reads the documents, their first segments and their headings in two queries."""
    # another translation of a text ("thig1.1@soma") rides beside the default one: it is never a sutta to find
    docs = {d.doc_id: d for d in docstore.documents() if "@" not in d.doc_id}
    by_doc: dict[str, list[SegmentRecord]] = {}
    for seg in docstore.opening_and_heading_segments(OPENING_SEGMENTS):
        by_doc.setdefault(seg.doc_id, []).append(seg)
    # a line that opens many documents is stock framing; counted once per document
    openers: Counter[str] = Counter()
    for segs in by_doc.values():
        openers.update({_stock_key(s.en) for s in segs if s.ord < OPENING_SEGMENTS})
    stock = {line for line, n in openers.items() if n >= STOCK_MIN_DOCS and line}
    return [build_card(doc, by_doc.get(doc_id, []), stock, names) for doc_id, doc in docs.items()]


# ---- the stores -----------------------------------------------------------------------------------------------
@dataclass
class CardReport:
    cards: int = 0
    embedded: int = 0  # cards with at least one vector embedded again
    vectors_embedded: int = 0
    removed: int = 0
    bm25_rebuilt: bool = False
    seconds: float = 0.0
    embed_seconds: float = 0.0
    pending: int = 0  # vectors left to embed (a run with embed=False)


def cards_dir(settings: ScholarSettings) -> Path:
    return settings.index_dir / CARDS_DIR


def card_collection(settings: ScholarSettings) -> str:
    return f"{settings.chroma_collection}-cards"


def open_card_vectors(settings: ScholarSettings) -> ChromaStore:
    return ChromaStore(settings.index_dir / "chroma", card_collection(settings), settings.chroma_url)


def load_cards(directory: Path) -> dict[str, SuttaCard]:
    path = Path(directory) / "cards.json"
    if not path.exists():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    if raw.get("version") != CARD_VERSION:
        return {}
    return {c["doc_id"]: SuttaCard.from_dict(c) for c in raw.get("cards", [])}


def _stored_digests(vectors: ChromaStore) -> dict[str, str]:
    out: dict[str, str] = {}
    offset, page = 0, 5000
    while True:
        got = vectors.collection.get(include=["metadatas"], limit=page, offset=offset)
        for cid, meta in zip(got["ids"], got["metadatas"] or []):
            out[cid] = (meta or {}).get("digest", "")
        if len(got["ids"]) < page:
            return out
        offset += page


def _inputs_fingerprint(settings: ScholarSettings, name_files: list[Path], text_only: bool = False) -> str:
    # the tables' contents, not their paths: the same index opened from another checkout is still up to date
    model = "" if text_only else embed_model_name(settings)
    h = hashlib.sha1(f"{CARD_VERSION}\n{model}".encode())
    for path in name_files:
        h.update(Path(path).read_bytes() if path and Path(path).exists() else b"\0absent")
        h.update(b"\0")
    return h.hexdigest()


def _vector_digest(text: str, model_name: str) -> str:
    """What a stored vector was made from: its text and the model (the vector depends on both)."""
    return hashlib.sha1(f"{model_name}\n{text}".encode()).hexdigest()


def _legacy_digest(card: SuttaCard, model_name: str) -> str:
    # Indexes written before vectors carried their own text's digest marked the card vector with the whole card's;
    # a match there means both of the card's vectors are current, and only their metadata is rewritten.
    return hashlib.sha1(f"{card.digest()}:{model_name}".encode()).hexdigest()


def refresh_cards(settings: ScholarSettings, docstore: DocStore, get_model: Callable[[], BaseEmbedding],
                  docs_changed: bool = True, *, embed: bool = True,
                  on_vectors: Callable[[int], None] | None = None) -> CardReport:
    """Bring the cards in line with the docstore: embed new and changed cards only, drop those of removed
    documents, rebuild the card BM25 when anything changed. Idempotent. When no document changed and the name
    tables and the embedding model are as last time, it only checks that the stores are complete.

    With `embed=False` only the text side is brought in line (cards.json and their BM25: the lexical phase of an
    ingest) and `report.pending` says how many vectors are left to embed. Vectors are embedded and stored in
    groups of CARD_EMBED_GROUP, each durable at once; `on_vectors(n)` is called after each."""

    started = time.perf_counter()
    report = CardReport()
    name_files = [settings.nicknames_csv, settings.titles_csv]
    directory = cards_dir(settings)
    directory.mkdir(parents=True, exist_ok=True)
    fingerprint = _inputs_fingerprint(settings, name_files)
    marker = directory / "inputs.json"
    vectors = open_card_vectors(settings)
    bm25 = BM25Store(directory / "bm25")
    # the text side alone depends on the documents, the name tables and the card version, not on the model
    text_marker, text_print = directory / "text.json", _inputs_fingerprint(settings, name_files, text_only=True)
    if not embed and not docs_changed and bm25.stored_tokenizer() == TOKENIZER_ID and text_marker.exists() \
            and (directory / "cards.json").exists():
        recorded = json.loads(text_marker.read_text())
        if recorded.get("fingerprint") == text_print:
            report.cards = recorded.get("cards", 0)
            report.seconds = time.perf_counter() - started
            return report
    if not docs_changed and marker.exists() and bm25.stored_tokenizer() == TOKENIZER_ID:
        recorded = json.loads(marker.read_text())
        if recorded.get("fingerprint") == fingerprint and 2 * recorded.get("cards", -1) == vectors.count():
            report.cards = recorded["cards"]
            report.seconds = time.perf_counter() - started
            return report

    cards = build_cards(docstore, load_names(name_files))
    report.cards = len(cards)
    model_name = embed_model_name(settings)
    # two vectors a card: the whole card (id doc_id, kind "card") and its name alone (doc_id + NAME_SUFFIX)
    wanted: dict[str, tuple[SuttaCard, str, str]] = {}  # vector id -> (card, kind, text)
    for c in cards:
        wanted[c.doc_id] = (c, "card", c.dense_text())
        wanted[c.doc_id + NAME_SUFFIX] = (c, "name", c.name_text())
    digests = {vid: _vector_digest(text, model_name) for vid, (_, _, text) in wanted.items()}
    stored = _stored_digests(vectors)
    _adopt_legacy(vectors, cards, stored, digests, model_name)
    changed = [vid for vid in wanted if stored.get(vid) != digests[vid]]
    gone = [vid for vid in stored if vid not in wanted]
    if gone:
        vectors.delete_ids(gone)
        report.removed = len(gone)
    report.pending = len(changed)
    if changed and embed:
        t0 = time.perf_counter()
        model = get_model()
        # longest first across both kinds, so each group's batches hold texts of like length; the order is a
        # function of what is missing, so a resumed run embeds the same groups a clean run would
        changed.sort(key=lambda vid: (-len(wanted[vid][2]), vid))
        for start in range(0, len(changed), CARD_EMBED_GROUP):
            part = changed[start : start + CARD_EMBED_GROUP]
            made = embed_texts(model, [wanted[vid][2] for vid in part])
            # each vector carries the digest of its own text: a run killed mid-way redoes only what is missing
            vectors.collection.upsert(
                ids=part, embeddings=made,
                metadatas=[_vector_meta(wanted[vid][0], wanted[vid][1], digests[vid]) for vid in part],
            )
            if on_vectors:
                on_vectors(len(part))
        report.embed_seconds = time.perf_counter() - t0
        report.vectors_embedded = len(changed)
        report.embedded = len({wanted[vid][0].doc_id for vid in changed})
        report.pending = 0
    on_disk = load_cards(directory)
    card_ids = {c.doc_id for c in cards}
    if gone or bm25.stored_tokenizer() != TOKENIZER_ID or set(on_disk) != card_ids \
            or any(on_disk[d].digest() != c.digest() for d, c in ((c.doc_id, c) for c in cards) if d in on_disk):
        # the JSON is written before the BM25 index, whose tokenizer file marks the pair complete
        payload = {"version": CARD_VERSION, "cards": [asdict(c) for c in cards]}
        tmp = directory / "cards.json.tmp"
        tmp.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        tmp.replace(directory / "cards.json")
        bm25.build([(c.doc_id, c.bm25_text()) for c in cards])
        bm25.save()
        report.bm25_rebuilt = True
    # the vectors left owed, which the semantic phase reads: a changed card's old vector still counts in the store
    text_marker.write_text(json.dumps({"fingerprint": text_print, "cards": len(cards), "pending": report.pending}))
    # the marker lets the next run skip all this: written only once every vector is in, and gone while one is
    # missing, so a run stopped before the vectors are done is finished by the next, whatever else changed
    if not report.pending:
        marker.write_text(json.dumps({"fingerprint": fingerprint, "cards": len(cards)}))
    else:
        marker.unlink(missing_ok=True)
    report.seconds = time.perf_counter() - started
    log.info("cards: %d (%d embedded, %d vectors; %d removed) in %.1fs", report.cards, report.embedded,
             report.vectors_embedded, report.removed, report.seconds)
    return report


def _vector_meta(card: SuttaCard, kind: str, digest: str) -> dict[str, str]:
    return {"doc_id": card.doc_id, "sutta_id": card.sutta_id, "kind": kind, "digest": digest}


def _adopt_legacy(vectors: ChromaStore, cards: list[SuttaCard], stored: dict[str, str], digests: dict[str, str],
                  model_name: str) -> None:
    """Give the vectors of an index written before per-vector digests their own digests, without embedding:
    a card vector whose whole-card digest still matches has both of its vectors current."""
    current = [c for c in cards if c.doc_id in stored and c.doc_id + NAME_SUFFIX in stored
               and stored[c.doc_id] == _legacy_digest(c, model_name)]
    ids = [vid for c in current for vid in (c.doc_id, c.doc_id + NAME_SUFFIX)]
    for start in range(0, len(ids), 1000):
        part = ids[start : start + 1000]
        kinds = ["name" if vid.endswith(NAME_SUFFIX) else "card" for vid in part]
        by_id = {c.doc_id: c for c in current}
        vectors.collection.update(
            ids=part,
            metadatas=[_vector_meta(by_id[vid.removesuffix(NAME_SUFFIX)], kind, digests[vid])
                       for vid, kind in zip(part, kinds)],
        )
    stored.update((vid, digests[vid]) for vid in ids)
