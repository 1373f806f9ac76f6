"""Vocabulary bridges at query time: a reader's words from other translations and from Pali, made to meet Sujato's.

Readers quote Bodhi's or Ṭhānissaro's English ("the monks", "nirvana", "the first jhana", "sloth and torpor")
or write Pali ("metta", "kiṁsuka", a whole Pali line). The table in `tools/data/bridges.toml` maps older
renderings and Pali words to the words of this library's translation. For a query:

- BM25 keeps the reader's words (weight 1; a repeated word saturates, `query_term_weight`) and adds the bridged
  words: at a reduced weight for one older word, which may be meant otherwise; at the reader's weight for an older
  phrase of several words ("teaching of the Buddhas"), which names its idea as surely as Sujato's word;
- the dense query has each bridged older word replaced by Sujato's rendering when that older word is foreign
  to the translation (it occurs in few passages), or followed by it when the translation uses the word itself in
  another sense ("insight", "calm"): MiniLM then reads the library's word, not a paraphrase it may not connect;
- words that are Pali rather than English — much commoner in the aligned Pali root than in the English — are
  searched in the Pali of every passage (`indexing.pali_index`), by stem, so an inflected or unaccented spelling
  (`jhana`, `nibbana`, `pubbe caham`) meets `jhānaṁ`, `nibbānaṁ`, `pubbe cāhaṁ`.
"""

from __future__ import annotations

import bisect
import logging
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from indexing.pali_index import nasal, pali_store
from indexing.stores.bm25_store import BM25Store
from indexing.vocabulary import CANON_NAME_WORDS
from tools.language.words import STOPWORDS, WRITTEN_WORD, fold, pali_stem, tokenize, written_words

log = logging.getLogger(__name__)

BRIDGES_FILE = Path(__file__).parent.parent / "data" / "bridges.toml"
BRIDGE_WEIGHT = 0.3  # default share of a bridged word in BM25 against the reader's own (settings.bridge_weight)
QUERY_TF_K3 = 1.0  # saturation of a word the reader repeats (settings.query_tf_k3; see `query_term_weight`)
NATIVE_MIN_CHUNKS = 25  # an older word in at least this many English passages is the translation's own word too
PALI_MIN_LEN = 4
PALI_MAX_SUFFIX = 4  # inflection endings a stem may take: jhan-a, jhan-am, jhan-ani, jhan-ena, jhan-assa


@dataclass(frozen=True)
class Bridge:
    sujato: tuple[str, ...]
    older: tuple[str, ...] = ()
    pali: tuple[str, ...] = ()
    used_by: str = ""


@dataclass
class BridgedQuery:
    bm25_weights: dict[str, float] = field(default_factory=dict)  # analyzed English tokens -> weight
    dense_text: str = ""
    pali_weights: dict[str, float] = field(default_factory=dict)  # Pali vocabulary tokens -> weight
    pali_words: list[str] = field(default_factory=list)  # the reader's words taken as Pali, folded, each once
    matches: list[str] = field(default_factory=list)  # "monks -> mendicant", "jhana (Pali) -> absorption"
    # each bridged idea as (the reader's analyzed tokens, the tokens they were bridged to): one idea in two words
    pairs: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)

    @property
    def bridged(self) -> bool:
        return bool(self.matches or self.pali_weights)


def query_term_weight(count: float, k3: float | None) -> float:
    """BM25's query-term saturation (Robertson's k3): a word written n times weighs (k3 + 1) n / (k3 + n) — 1 once,
    at most k3 + 1 however often. A reader who quotes a parallel saying ("the greatest gift, the greatest wealth,
    the greatest bliss") repeats its frame word, and linear weight would let any passage that has the frame word
    three times outscore the one that has the saying. None: linear (n)."""
    if k3 is None:
        return count
    return (k3 + 1) * count / (k3 + count)


def load_bridges(path: Path = BRIDGES_FILE) -> list[Bridge]:
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for row in data.get("bridge", []):
        if not row.get("sujato"):
            raise ValueError(f"{path}: a bridge without `sujato`: {row}")
        out.append(Bridge(tuple(row["sujato"]), tuple(row.get("older", ())), tuple(row.get("pali", ())),
                          row.get("used_by", "")))
    return out


class PaliVocabulary:
    """The Pali BM25 index with its vocabulary sorted, so a stem's inflections are a bisect away."""

    def __init__(self, store: BM25Store):
        self.store = store
        vocab = store.vocabulary()
        self.words = sorted(vocab)

    @classmethod
    def open(cls, index_dir: Path) -> PaliVocabulary | None:
        store = pali_store(index_dir)
        if store.stored_tokenizer() is None:
            return None
        return cls(store.load())

    def forms(self, word: str) -> list[str]:
        """Vocabulary words that are `word` or an inflection of its stem."""
        stem = pali_stem(word)
        words = self.words
        out = []
        # by index: slicing `words[lo:]` would copy the rest of a 76,000-word vocabulary on every call
        for i in range(bisect.bisect_left(words, stem), len(words)):
            w = words[i]
            if not w.startswith(stem):
                break
            if len(w) - len(stem) <= PALI_MAX_SUFFIX and (w == word or len(w) >= PALI_MIN_LEN):
                out.append(w)
        return out

    def frequency(self, words: list[str]) -> int:
        return sum(self.store.document_frequency(w)[0] for w in words)


class Bridges:
    def __init__(self, bridges: list[Bridge], english: BM25Store | None, pali: PaliVocabulary | None,
                 weight: float = BRIDGE_WEIGHT, query_k3: float | None = QUERY_TF_K3):
        self.bridges = bridges
        self.weight = weight
        self.query_k3 = query_k3
        self.english = english
        self.pali = pali
        # older phrase as analyzed tokens -> bridge; longest phrases first at each start token. A phrase whose
        # analysis drops a word that makes it ("silent buddha" is ("silent",): "buddha" is a stopword to BM25)
        # also needs its words as written, or every "silent" would be bridged.
        self._older: dict[str, list[tuple[tuple[str, ...], Bridge]]] = {}
        self._written: dict[tuple[tuple[str, ...], int], str] = {}
        for b in bridges:
            for phrase in b.older:
                toks = tuple(tokenize(phrase))
                if toks:
                    self._older.setdefault(toks[0], []).append((toks, b))
                    if len(toks) < len(_surface(phrase).split()):
                        self._written[(toks, id(b))] = _surface(phrase)
        for entries in self._older.values():
            entries.sort(key=lambda e: -len(e[0]))
        self._pali: list[tuple[str, Bridge]] = [(nasal(fold(p).replace(" ", "")), b) for b in bridges for p in b.pali]
        self._native: dict[tuple[str, ...], bool] = {}

    @classmethod
    def load(cls, english: BM25Store | None, index_dir: Path | None, path: Path = BRIDGES_FILE,
             weight: float = BRIDGE_WEIGHT, query_k3: float | None = QUERY_TF_K3) -> Bridges:
        pali = None
        if index_dir is not None:
            try:
                pali = PaliVocabulary.open(index_dir)
            except Exception as exc:  # an old or damaged Pali index: bridges still work on English
                log.warning("Pali index unavailable (%s); Pali words are bridged but not searched", exc)
        return cls(load_bridges(path), english, pali, weight, query_k3)

    # ---- helpers ---------------------------------------------------------------------------------------------
    def _english_df(self, tokens: tuple[str, ...]) -> int:
        if self.english is None or not self.english.ready:
            return 0
        return min((self.english.document_frequency(t)[0] for t in tokens), default=0)

    def _is_native(self, tokens: tuple[str, ...]) -> bool:
        if tokens not in self._native:
            self._native[tokens] = self._english_df(tokens) >= NATIVE_MIN_CHUNKS
        return self._native[tokens]

    def pali_forms(self, word: str) -> list[str]:
        """The Pali vocabulary forms of `word` when it is a Pali word rather than an English one, else []."""
        if self.pali is None or len(word) < PALI_MIN_LEN or word in STOPWORDS or _names_a_part(word):
            return []
        forms = self.pali.forms(word)
        if not forms:
            return []
        pali_df = self.pali.frequency(forms)
        english_df = self._english_df(tuple(tokenize(word))) if tokenize(word) else 0
        # Sujato keeps some Pali in the English (Dhamma, names, the odd samādhi): a word counts as Pali only when
        # the translation rarely uses it and the root text has it far more often
        return forms if english_df < NATIVE_MIN_CHUNKS and pali_df >= 4 * english_df else []

    def _pali_bridge(self, word: str) -> Bridge | None:
        # the same stem (`jhanam` ~ `jhana`) or the whole key inflected (`mettaya`); a shared prefix alone is not
        # enough (`pitaka` is not `piti`)
        stem = pali_stem(word)
        for key, b in self._pali:
            if stem == pali_stem(key) or word.startswith(key):
                return b
        return None

    # ---- the query -----------------------------------------------------------------------------------------
    def apply(self, text: str, bm25_text: str | None = None) -> BridgedQuery:
        """Bridge `text` (the dense query); `bm25_text` is the reader's words as BM25 will see them."""
        out = BridgedQuery(dense_text=text)
        for tok in tokenize(bm25_text if bm25_text is not None else text):
            out.bm25_weights[tok] = out.bm25_weights.get(tok, 0.0) + 1.0
        out.bm25_weights = {t: query_term_weight(n, self.query_k3) for t, n in out.bm25_weights.items()}
        words = [(m.start(), m.end(), m.group(0)) for m in WRITTEN_WORD.finditer(text)]
        analyzed = [(s, e, w, tokenize(w)) for s, e, w in words]
        # content tokens in order, each remembering the span of the word it came from
        stream = [(tok, s, e) for s, e, _, toks in analyzed for tok in toks]
        edits: list[tuple[int, int, str]] = []
        i = 0
        while i < len(stream):
            tok = stream[i][0]
            matched = None
            for phrase, bridge in self._older.get(tok, []):
                if tuple(t for t, _, _ in stream[i : i + len(phrase)]) == phrase:
                    written = self._written.get((phrase, id(bridge)))
                    if written is not None and written not in _surface(text):
                        continue
                    matched = (phrase, bridge)
                    break
            if matched is None:
                i += 1
                continue
            phrase, bridge = matched
            start, end = stream[i][1], stream[i + len(phrase) - 1][2]
            # a phrase ("teaching of the Buddhas", "final nibbana") names its idea as surely as the library's own
            # word would: its rendering weighs as the reader's words do; a single word may be meant otherwise
            self._add(out, bridge, 1.0 if len(phrase) > 1 else self.weight)
            out.pairs.append((phrase, _sujato_tokens(bridge)))
            written = text[start:end]
            out.matches.append(f"{written} -> {bridge.sujato[0]}")
            native = self._is_native(phrase)
            edits.append((start, end, f"{written} ({bridge.sujato[0]})" if native else bridge.sujato[0]))
            i += len(phrase)
        for s, e, w, _ in analyzed:
            word = nasal(fold(w).replace("-", "").replace("'", "").replace("’", ""))
            forms = self.pali_forms(word)
            if not forms:
                continue
            for f in forms:
                out.pali_weights[f] = out.pali_weights.get(f, 0.0) + 1.0
            if word not in out.pali_words:
                out.pali_words.append(word)
            if any(s < ee and ss < e for ss, ee, _ in edits):
                continue  # already bridged as an older rendering ("jhana" is both)
            pali_bridge = self._pali_bridge(word)
            if pali_bridge is not None:
                self._add(out, pali_bridge)
                out.pairs.append((tuple(tokenize(w)), _sujato_tokens(pali_bridge)))
                out.matches.append(f"{w} (Pali) -> {pali_bridge.sujato[0]}")
                edits.append((s, e, pali_bridge.sujato[0]))
        for s, e, new in sorted(edits, reverse=True):
            out.dense_text = out.dense_text[:s] + new + out.dense_text[e:]
        return out

    def _add(self, out: BridgedQuery, bridge: Bridge, weight: float | None = None) -> None:
        weight = self.weight if weight is None else weight
        for rendering in bridge.sujato:
            for tok in tokenize(rendering):
                if out.bm25_weights.get(tok, 0.0) < weight:
                    out.bm25_weights[tok] = weight


def _surface(text: str) -> str:
    """Words as written, folded, one space apart: "Silent  Buddhas" -> "silent buddhas", "ill-will" -> "ill will"."""
    return " ".join(fold(w) for w in written_words(text.replace("-", " ")))


def _names_a_part(word: str) -> bool:
    """"Vinaya", "Dīgha", "suttas": a word naming a part of the canon (a hint where to look, not a topic)."""
    return word in CANON_NAME_WORDS or (word.endswith("s") and word[:-1] in CANON_NAME_WORDS)


def _sujato_tokens(bridge: Bridge) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tok for rendering in bridge.sujato for tok in tokenize(rendering)))


# ---- glue for the retriever ------------------------------------------------------------------------------------
def bridge_plan(library, plan) -> None:
    """Bridge a query analysis (tools.search.query) in place for search: weighted BM25 tokens, the dense text in the
    library's words, the forms of its Pali words."""
    bridged = library.bridges.apply(plan.dense_text, plan.bm25_text)
    plan.bm25_weights = bridged.bm25_weights
    # the aligned Pali is searched for a reader who writes Pali (a quoted line), not for one Pali word in an English
    # question ("arahant", "jhana", a name): those the English search and the bridges serve
    quoted = len(bridged.pali_words) >= library.settings.pali_min_words
    plan.pali_weights = bridged.pali_weights if quoted else {}
    if bridged.dense_text != plan.dense_text:
        plan.dense_text = bridged.dense_text
    if bridged.matches:
        plan.notes.append("bridged: " + "; ".join(bridged.matches))


def pali_ranking(library, weights: dict[str, float], k: int,
                 allowed: set[str] | None = None) -> list[tuple[str, float]]:
    pali = library.bridges.pali
    if pali is None or not weights:
        return []
    return [(h.chunk_id, h.score) for h in pali.store.search_weighted(weights, k=k, allowed=allowed)]
