"""Sutta names beyond exact titles: other translators' titles, Pali names spelled a reader's way, descriptions.

`tools.search.aliases.AliasIndex` knows the exact titles and nicknames. Readers also name texts as other translations
title them ("Heirs in the Dhamma" for Sujato's "Heirs in the Teaching", "All the Taints" for "All the
Defilements"), spell Pali names their way ("Kindada" for Kiṁdada, "Lahu-parivaṭṭa" for a word of the text's first
line, "Tittha" for Titthāyatana), or describe the text ("Dog on a Leash"). When the exact index has nothing, a
whole name (not a question: that is search's job) is matched four ways, each saying how it matched:

- fuzzy Pali title — the name as one folded compound (hyphens and spaces gone, niggahīta read as a nasal,
  "Sutta" dropped) against every Pali title, by edit ratio or as a prefix of a longer compound;
- Pali text — the same compound against the words of each text's opening lines in Pali (many reader titles are
  a key word of the text: Ekaṁsena, Appaṭivāna, Pabhassara), less certain the more texts share the word;
- fuzzy title — the English words (with vocabulary bridges: taints -> defilements) against titles and names,
  weighted by how rare each word is among titles;
- semantic card — the name against the sutta cards (title, names, blurb, first lines), densely and by BM25.

A loose way never offers an abbreviated series — a SuttaCentral text whose uid is itself a range of suttas
(`sn46.77-88` "The Ganges River, Etc.", `an1.142-149`): it is a run of repetitions, each a text of its own, and no
reader's name in the tables (5,555 other translations' titles, 86 nicknames) points at one. Its exact title still
resolves to it.

Generic words never make a match: a name must keep a distinctive word once "the", "discourse", "simile",
"Buddha's", ordinals and the like are set aside (see `tools.search.aliases.distinctive`), so "the first discourse"
resolves to nothing; only an exact curated nickname ("the First Sermon") names its text with generic words.
"""

from __future__ import annotations

import bisect
import logging
import math
import re
from collections.abc import Callable

from rapidfuzz import fuzz, process

from indexing.pali_index import nasal, pali_tokens
from indexing.vocabulary import BOOKS, COLLECTIONS
from tools.language.words import STOPWORDS, fold, folded_words, pali_stem, tokenize, word_set, written_words
from tools.search.aliases import (
    GENERIC_NAME_WORDS,
    MAX_WINDOW,
    STRONG,
    AliasCandidate,
    AliasIndex,
    AliasMatch,
    AliasResolution,
    distinctive,
)

log = logging.getLogger(__name__)

FLOOR = 45.0  # below this no candidate is offered: "no sutta by that name" beats a guess
LOOSE_CEILING = STRONG - 1.0
LIMIT = 6
PALI_RATIO = 84.0  # edit-ratio cut-off for a Pali title to count as the same name
PALI_MIN_KEY = 5
FUZZY_TITLE_SCALE = 88.0  # a perfect fuzzy English match still ranks under an exact one
_SUFFIX = re.compile(r"(?:sutta|suttam|suttanta|sutra)$")
_PALI_SUFFIX_WORDS = {"sutta", "suttam", "suttanta", "sutra"}
_NAME_SUFFIX_WORDS = _PALI_SUFFIX_WORDS | {"discourse"}
# Words a title is matched without: the generic ones as titles are tokenized ("teachings" -> "teaching"), and the
# words for the kind of text that each translator renders otherwise — ovāda is Sujato's "Advice to Channa",
# others' "Exhortation to ...", "Instructions to ...", "Admonition" — so that the person or topic decides.
_TEXT_KIND = {"advice", "exhortation", "exhortations", "instruction", "instructions", "admonition", "admonitions"}
_TITLE_GENERIC = frozenset({t for w in GENERIC_NAME_WORDS | _TEXT_KIND for t in (w, *tokenize(w))})


def _ordinal(token: str) -> str:
    """Numbers as Sujato writes them in titles, so "The Leash (1)" meets "A Leash (1st)": `1` -> `1st`."""
    if not token.isdigit():
        return token
    n = int(token)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _title_word(token: str) -> bool:
    """Whether a title token takes part in matching titles: not generic, not a kind of text."""
    return token not in _TITLE_GENERIC


_UPAMA = re.compile(r"^(.+?)[aeiou]?upama$")
SEMANTIC_CEILING = 80.0  # a description alone never names a text as surely as a title does
DENSE_GAP = 0.03  # how far the best card must stand above the next for the dense match to count fully

Embed = Callable[[str], list[float]]


def _compound(words: list[str]) -> str:
    return _SUFFIX.sub("", "".join(words))


class NameMatcher:
    def __init__(self, aliases: AliasIndex, cards, bridges=None):
        self.aliases = aliases
        self.cards = cards
        self.bridges = bridges
        self.sutta_of = {c.doc_id: c.sutta_id for c in cards.cards.values()}
        # Pali titles as compounds: `titthayatana` -> [AN 3.61]
        self.pali_titles: dict[str, list[str]] = {}
        # words of each text's opening Pali -> {sutta: position of the word's first use in the opening}
        self.pali_words: dict[str, dict[str, int]] = {}
        # English title and name tokens per sutta, and how many suttas' titles hold each token
        self.title_tokens: dict[str, list[set[str]]] = {}  # one set per name: the title, then each other name
        self.title_df: dict[str, int] = {}
        self.by_token: dict[str, set[str]] = {}
        for card in cards.cards.values():
            sid = card.sutta_id
            if card.title_pali:
                key = _compound([nasal(w) for w in re.findall(r"[a-z]+", fold(card.title_pali))])
                if len(key) >= 3:
                    self.pali_titles.setdefault(key, []).append(sid)
            for position, word in enumerate(pali_tokens(card.opening_pali)):
                if len(word) >= 4:
                    self.pali_words.setdefault(word, {}).setdefault(sid, position)
            names = [{_ordinal(t) for t in tokenize(n) if _title_word(t)} for n in (card.title, *card.names)]
            names = [n for n in names if n]
            toks = set().union(*names)
            if toks:
                self.title_tokens[sid] = names
                for t in toks:
                    self.title_df[t] = self.title_df.get(t, 0) + 1
                    self.by_token.setdefault(t, set()).add(sid)
        self._pali_title_keys = list(self.pali_titles)
        self._sorted_titles = sorted(self.pali_titles)
        self._sorted_words = sorted(self.pali_words)
        self._sorted_tokens = sorted(self.by_token)
        self._n_titles = max(1, len(self.title_tokens))
        self._mean_idf = (sum(self._idf(t) for t in self.title_df) / len(self.title_df)) if self.title_df else 1.0

    # ---- the whole resolution ---------------------------------------------------------------------------------
    def resolve(self, name: str, embed: Embed | None = None) -> AliasResolution:
        """Candidates for one name (a title, nickname or Pali name), best first, each saying how it matched."""
        text = name.strip().strip("\"'“”‘’«»").strip()
        exact = self.aliases.resolve(text)
        words = written_words(text)
        if exact.candidates or len(words) > MAX_WINDOW or not text:
            return self._tie_break(exact, text)
        folded = [nasal(w) for w in folded_words(text)]
        content = [w for w in folded if w not in _NAME_SUFFIX_WORDS]
        if not distinctive(" ".join(content)) or _is_question(text, folded) or _names_a_collection(folded):
            return AliasResolution(text)
        # "X Sutta" or a name all of whose words are Pali rather than English is matched as Pali
        named = bool(folded) and (folded[-1] in _PALI_SUFFIX_WORDS or bool(_SUFFIX.search(folded[-1])))
        pali_words = [w for w in content if w not in GENERIC_NAME_WORDS and w not in STOPWORDS]
        ways: list[list[AliasCandidate]] = []
        if named or (pali_words and all(self._is_pali(w) for w in pali_words)):
            ways.append(self._pali(pali_words, text, named))
        ways.append(self._fuzzy_title(text))
        ways.append(self._semantic(text, embed))
        ranked = _combine([[c for c in way if not is_series(c.sutta_id)] for way in ways])
        if not ranked:
            return AliasResolution(text)
        return AliasResolution(text, [AliasMatch(text, 0, len(words), ranked[0].score, ranked)])

    def _candidate(self, sid: str, via: str, matched: str, score: float, how: str) -> AliasCandidate:
        return AliasCandidate(sid, self.aliases.titles.get(sid, ""), via, matched, round(score, 1), how, how)

    def _is_pali(self, word: str) -> bool:
        if self.bridges is None or self.bridges.pali is None or len(word) < PALI_MIN_KEY - 1:
            return False
        return bool(self.bridges.pali_forms(word))

    # ---- exact matches shared by several suttas ---------------------------------------------------------------
    def _tie_break(self, resolution: AliasResolution, text: str) -> AliasResolution:
        """Several suttas share the name (three "Yodhājīvasutta"): put first the one whose card otherwise speaks
        of the name — a title that is a person's name is usually about that person."""
        for m in resolution.matches:
            if not m.ambiguous or self.cards.bm25 is None:
                continue
            weights = {t: 1.0 for t in tokenize(text)}
            hits = dict(self.cards.search_bm25(weights, k=200))
            by_sid = {self.sutta_of.get(d, d): s for d, s in hits.items()}
            m.candidates.sort(key=lambda c: (-c.score, -by_sid.get(c.sutta_id, 0.0)))
            # a slight edge so the resolution's ranking (by score) keeps the order just decided
            for i, c in enumerate(m.candidates):
                c.score = round(c.score - 0.01 * i, 2)
        return resolution

    # ---- Pali ----------------------------------------------------------------------------------------------
    def _pali(self, words: list[str], text: str, named: bool) -> list[AliasCandidate]:
        out: list[AliasCandidate] = []
        keys = {_compound(words)}
        if named:
            keys.update(w for w in words if len(w) >= PALI_MIN_KEY)  # "Rathakara (Pacetana) Sutta": each part too
        # a simile's name compounds with upamā and merges the vowels: vatthūpama = vattha + upamā
        keys |= {m.group(1) + "a" for key in keys if (m := _UPAMA.match(key)) and len(m.group(1)) >= 3}
        shortest = PALI_MIN_KEY - 1 if named else PALI_MIN_KEY
        for key in keys:
            if len(key) < shortest:
                continue
            # spelling variants keep the first letters: `ittha` is another word than `tittha`
            for match, ratio, _ in process.extract(key, self._pali_title_keys, scorer=fuzz.ratio, limit=4,
                                                   score_cutoff=PALI_RATIO):
                if match[:2] == key[:2]:
                    for sid in self.pali_titles[match]:
                        out.append(self._candidate(sid, match, text, ratio * 0.95, "fuzzy Pali title"))
            if len(key) >= PALI_MIN_KEY:
                # one is a compound of the other: `tittha` / `titthayatana`
                for title_key in self._prefixed(self._sorted_titles, key):
                    for sid in self.pali_titles[title_key]:
                        out.append(self._candidate(sid, title_key, text, 80.0 * (len(key) / len(title_key)) ** 0.25,
                                                   "fuzzy Pali title"))
            # a key word of the text's opening lines, inflected or in sandhi (`pabhassaramidam`): the earlier it
            # stands and the fewer texts open with it, the likelier it names the text (how often a long opening
            # repeats it was tried and misleads: lists repeat their words)
            stem = pali_stem(key)
            found: dict[str, list] = {}  # sutta -> [first position of any form, fewest texts sharing one, word]
            for word in self._prefixed(self._sorted_words, stem):
                if not (word.startswith(key) or len(word) - len(stem) <= 4):
                    continue
                suttas = self.pali_words[word]
                for sid, position in suttas.items():
                    slot = found.setdefault(sid, [position, len(suttas), word])
                    slot[0], slot[1] = min(slot[0], position), min(slot[1], len(suttas))
            for sid, (position, sharing, word) in found.items():
                score = 84.0 - 4.0 * math.log2(sharing) - 2.0 * math.log2(1 + position)
                out.append(self._candidate(sid, word, text, score, "Pali text"))
        return out

    @staticmethod
    def _prefixed(ordered: list[str], prefix: str) -> list[str]:
        out = []
        for i in range(bisect.bisect_left(ordered, prefix), len(ordered)):  # by index: a slice would copy the tail
            w = ordered[i]
            if not w.startswith(prefix):
                break
            out.append(w)
            if len(out) > 50:
                break
        return out

    # ---- English -------------------------------------------------------------------------------------------
    def _query_tokens(self, text: str) -> dict[str, float]:
        """The name's English tokens (generic words out), with bridged words at their reduced weight."""
        return self._bridged(text)[0]

    def _bridged(self, text: str) -> tuple[dict[str, float], list[tuple[str, ...]]]:
        """The name's tokens as `_query_tokens` gives them, and its ideas for title matching: each a tuple of
        alternative tokens — a reader's word alone, or an older rendering together with Sujato's words for it
        ("taints" with "defilements"), which are one idea however many of the words a title holds."""
        keep = " ".join(w for w in written_words(text) if fold(w) not in GENERIC_NAME_WORDS)
        pairs: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        if self.bridges is not None:
            bridged = self.bridges.apply(keep)
            weights, pairs = dict(bridged.bm25_weights), bridged.pairs
        else:
            weights = {t: 1.0 for t in tokenize(keep)}
        weights = {t: w for t, w in weights.items() if t not in STOPWORDS and t not in GENERIC_NAME_WORDS}
        ideas: list[tuple[str, ...]] = []
        grouped: set[str] = set()
        for older, sujato in pairs:
            idea = tuple(_ordinal(t) for t in (*older, *sujato) if t in weights and t not in grouped and _title_word(t))
            if idea:
                ideas.append(idea)
            grouped.update((*older, *sujato))
        ideas += [(_ordinal(t),) for t in weights if t not in grouped and _title_word(t)]
        return weights, ideas

    def _idf(self, token: str) -> float:
        return math.log(1 + self._n_titles / (1 + self.title_df.get(token, 0)))

    def _title_match(self, token: str) -> list[str]:
        """Title tokens this reader token matches: itself, or one a prefix of the other (bucketful / bucket)."""
        found = [token] if token in self.by_token else []
        if len(token) >= 5:
            found += [t for t in self._prefixed(self._sorted_tokens, token) if t != token]
            found += [token[:n] for n in range(5, len(token)) if token[:n] in self.by_token]
        return found

    def _fuzzy_title(self, text: str) -> list[AliasCandidate]:
        """Titles and names sharing the name's rarer words: an F1 of shared word weight (IDF among titles)
        against the name's words and against the title's. A bridged idea counts once on the name's side, by
        whichever of its words a title holds ("All the Taints" meets "All the Defilements" as fully as a title
        with "taints" would), and by all of them on the title's side ("tank" meets "lotus pond")."""
        _, ideas = self._bridged(text)
        if not ideas:
            return []
        total_q = 0.0
        matched: list[list[list[str]]] = []  # per idea, per alternative word: the title tokens it matches
        own: list[float] = []  # per idea, its weight on the name's side
        suttas: set[str] = set()
        for idea in ideas:
            per_word = [self._title_match(t) for t in idea]
            matched.append(per_word)
            found = [m for ms in per_word for m in ms]
            # a word no title has cannot tell titles apart; it counts as an average title word
            own.append(max(self._idf(m) for m in found) if found else self._mean_idf)
            total_q += own[-1]
            for m in found:
                suttas |= self.by_token.get(m, set())
        out = []
        for sid in suttas:
            # each name on its own: a text that other translators title three ways is not one long title
            f1 = 0.0
            for name in self.title_tokens[sid]:
                shared = [sum(max((self._idf(m) for m in ms if m in name), default=0.0) for ms in per_word)
                          for per_word in matched]
                s_title = sum(shared)
                if s_title <= 0.0:
                    continue
                s_name = sum(min(s, o) for s, o in zip(shared, own, strict=True))
                p, r = min(1.0, s_name / total_q), min(1.0, s_title / sum(self._idf(t) for t in name))
                f1 = max(f1, 2 * p * r / (p + r))
            if f1 >= 0.4:
                out.append(self._candidate(sid, self.aliases.titles.get(sid, ""), text, FUZZY_TITLE_SCALE * f1,
                                           "fuzzy title"))
        return out

    def _texts(self, hits: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
        """The first `k` card hits that are texts of their own, not abbreviated series: ranked among themselves."""
        return [h for h in hits if not is_series(self.sutta_of.get(h[0], h[0]))][:k]

    def _semantic(self, text: str, embed: Embed | None) -> list[AliasCandidate]:
        """The cards most like the name. Dense: the best card counts in proportion to how far it stands above
        the next (a name that fits many texts equally singles out none); BM25 over the cards by rank."""
        scores: dict[str, float] = {}
        weights = self._query_tokens(text)
        for rank, (doc, _) in enumerate(self._texts(self.cards.search_bm25(weights, k=10) if weights else [], 5)):
            scores[doc] = scores.get(doc, 0.0) + 40.0 / (1 + rank)
        if embed is not None and (self.cards.matrix is not None or self.cards.name_matrix is not None):
            try:
                vector = embed(self.bridges.apply(text).dense_text if self.bridges is not None else text)
            except Exception as exc:  # the embedding side down: BM25 over cards still answers
                log.warning("semantic name matching without vectors: %s", exc)
                vector = None
            # a name is compared with names first (title with title), then with whole cards
            for hits, top_weight in ((self._texts(self.cards.search_names(vector, k=8), 3), 60.0),
                                     (self._texts(self.cards.search_dense(vector, k=8), 3), 30.0)):
                if len(hits) < 2:
                    continue
                gap = hits[0][1] - hits[1][1]
                scores[hits[0][0]] = scores.get(hits[0][0], 0.0) + top_weight * min(1.0, gap / DENSE_GAP)
                for rank, (doc, _) in enumerate(hits[1:], 1):
                    scores[doc] = scores.get(doc, 0.0) + top_weight / 3 / rank
        return [self._candidate(self.sutta_of.get(doc, doc), doc, text, min(SEMANTIC_CEILING, score), "semantic card")
                for doc, score in scores.items()]


_SERIES = re.compile(r"\d-\d")


def is_series(sutta_id: str) -> bool:
    """Whether a text is an abbreviated series (`SN 46.77-88`, `AN 1.142-149`, `Bi Pj 1-4`): its uid is a range.
    (A Dhammapada range is a group of verses, a text of its own.)"""
    return bool(_SERIES.search(sutta_id)) and not sutta_id.startswith("Dhp")


_QUESTION_START = word_set("question_start")


def _is_question(text: str, folded: list[str]) -> bool:
    """A question or request ("Is the house burning down?") is search's to answer, not a name to match loosely."""
    return text.rstrip().endswith("?") or (bool(folded) and folded[0] in _QUESTION_START)


_COLLECTION_NAMES = re.compile("|".join(
    [h for c in COLLECTIONS.values() for h in c.hints]
    + [re.escape(n) for b in BOOKS.values() for n in (*b.names, fold(b.english), fold(b.pali))]))


def names_a_collection(text: str) -> bool:
    """Whether `text` ("the Dhammapada", "Saṁyutta Nikāya") is the name of a collection or book as a whole."""
    return _names_a_collection([nasal(w) for w in folded_words(text)])


def _names_a_collection(folded: list[str]) -> bool:
    """"The Connected Discourses" names a collection, not a text in it: no sutta is matched loosely for it."""
    words = folded[1:] if folded[:1] == ["the"] else folded
    return bool(_COLLECTION_NAMES.fullmatch(" ".join(words)))


def _combine(ways: list[list[AliasCandidate]]) -> list[AliasCandidate]:
    """One ranking from several independent ways: within a way a sutta keeps its best score; across ways the
    scores combine as independent evidence (noisy-OR), so two moderate agreeing signals beat one alone. Each
    candidate keeps the way that gave it the most."""
    best: dict[str, AliasCandidate] = {}
    doubt: dict[str, float] = {}
    for way in ways:
        top: dict[str, AliasCandidate] = {}
        for c in way:
            if c.sutta_id not in top or top[c.sutta_id].score < c.score:
                top[c.sutta_id] = c
        for sid, c in top.items():
            doubt[sid] = doubt.get(sid, 1.0) * (1.0 - min(c.score, 99.0) / 100.0)
            if sid not in best or best[sid].score < c.score:
                best[sid] = c
    out = []
    for sid, c in best.items():
        # only an exact title or nickname is the reader naming a text (STRONG); anything looser is scaled below
        # it (scaled, not capped, so two strong loose matches keep their order)
        c.score = round(LOOSE_CEILING * (1.0 - doubt[sid]), 1)
        if c.score >= FLOOR:
            out.append(c)
    out.sort(key=lambda c: (-c.score, c.sutta_id))
    return out[:LIMIT]


def resolve_name(library, name: str) -> AliasResolution:
    """A title, nickname or Pali name as the agent's resolve_alias receives it: exact names first, then the looser
    ways above (with the query embedding when the dense side is up)."""
    return library.names.resolve(name, library.embed_query if library.dense_ready else None)
