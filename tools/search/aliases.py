"""Alias resolver: sutta titles and nicknames -> canonical IDs, also when the name sits inside a longer question.

Keys come from every document's English and Pali title in the docstore (folded, with and without "sutta") and
from the curated nicknames CSV. A question is matched by looking up its word n-grams (and their run-together
forms, `maha satipatthana` -> `mahasatipatthana`) in a dict, so resolving costs microseconds, not a scan.

Many real titles are ordinary words ("Burning", "Ones", "Nun", "Good Friends"), so an uncued match must be
specific: a curated nickname, a long English title, or a long Pali name that few suttas carry. Anything else
needs a cue beside it — "... Sutta", "the ... discourse", or quotation marks. Below the threshold: nothing.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz import fuzz, process

from indexing.cards import name_rows
from indexing.pali_index import nasal
from indexing.stores.docstore import DocStore
from tools.language.words import STOPWORDS, fold, folded_words, word_set

log = logging.getLogger(__name__)

# Well-known names of the Khuddaka and Vinaya texts that SuttaCentral's name files do not give (Karaṇīya Metta
# Sutta, Jewel Discourse, Pārājika 1 …), each with the segment that shows it and a public source.
CANON_NICKNAMES = Path(__file__).parent.parent / "data" / "canon_nicknames.csv"
_PALI_NAME = re.compile(r"(?:sutta|gatha|vagga|kkhandhaka|sikkhapada)$")
THRESHOLD = 80.0  # below this a candidate is dropped: no guess is better than a wrong sutta
STRONG = 90.0  # at or above this a match is treated as the user naming the sutta
MAX_WINDOW = 12  # words: the longest titles must fit ("The Shorter Discourse on the Simile of the Elephant’s …")
_SUTTA_SUFFIX = re.compile(r"(?:\s*(?:sutta|suttanta|suttam|sutra|discourse))+$")
_CUE_AFTER = {"sutta", "suttas", "suttanta", "sutra", "discourse", "sermon"}
_CUE_NAMED = {"called", "named", "titled", "entitled"}
_QUOTES = "\"'“”‘’«»"
# Words that say "a text" or "which one" but not which: a name made only of these (and function words) is a
# description many texts fit ("the first discourse", "the simile", "the Buddha's last words"), never a name.
GENERIC_NAME_WORDS = word_set("generic_name_words")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)?$")
_FUZZY_OWN_RATIO = 70.0  # a fuzzy name's distinctive words against the matched key's (fyre/fire: 75)


@dataclass
class AliasEntry:
    sutta_id: str
    alias: str  # as written in its source
    source: str  # nickname | title | title_pali
    named_sutta: bool = False  # the alias itself ends in "Sutta": a Pali-style name, not an English phrase


@dataclass
class AliasCandidate:
    sutta_id: str
    title: str
    alias: str
    matched: str  # the words of the question that matched
    score: float
    source: str
    how: str = ""  # how it matched, for the trace: exact title, nickname, fuzzy Pali, semantic card ...


# How each kind of alias entry reads in a trace when matched exactly.
HOW = {"nickname": "nickname", "title": "exact title", "title_pali": "exact Pali title",
       "other_title": "other translation's title"}


def distinctive_words(key: str) -> str:
    """The words of a folded name that could pick out one text: `the first sermon` -> ``, `fire sermon` -> `fire`."""
    return " ".join(w for w in key.split() if w not in GENERIC_NAME_WORDS and w not in STOPWORDS
                    and not _ORDINAL.match(w))


def distinctive(key: str) -> bool:
    """Whether a name holds a word that could pick out one text (not only generic words, ordinals, stopwords)."""
    return bool(distinctive_words(key))


@dataclass
class AliasMatch:
    text: str
    start: int  # word positions in the question
    end: int
    score: float
    candidates: list[AliasCandidate]

    @property
    def ambiguous(self) -> bool:
        return len({c.sutta_id for c in self.candidates}) > 1


@dataclass
class AliasResolution:
    query: str
    matches: list[AliasMatch] = field(default_factory=list)

    @property
    def candidates(self) -> list[AliasCandidate]:
        """Every candidate, best first, one per sutta."""
        seen: dict[str, AliasCandidate] = {}
        named: dict[str, int] = {}  # how many separate names in the text point at the sutta
        for m in sorted(self.matches, key=lambda m: -m.score):
            for c in m.candidates:
                named[c.sutta_id] = named.get(c.sutta_id, 0) + 1
                if c.sutta_id not in seen or seen[c.sutta_id].score < c.score:
                    seen[c.sutta_id] = c
        return sorted(seen.values(), key=lambda c: (-c.score, -named[c.sutta_id], c.source != "nickname"))

    @property
    def ambiguous(self) -> bool:
        return any(m.ambiguous for m in self.matches)

    def strong_suttas(self) -> list[str]:
        return [c.sutta_id for c in self.candidates if c.score >= STRONG]


def _words(text: str) -> list[str]:
    # niggahīta spelled as the nasal it is read as (`kiṁdada` = `kindada`), on keys and questions alike
    return [nasal(w) for w in folded_words(text)]


_ARTICLE = re.compile(r"^(?:the|a|an) ")
# the words that frame a title without naming anything: "Simile of the Snake" = "The Snake Simile",
# "Discourse on Love" = "Love Sutta" = "The Love Discourse"
_FRAME_WORDS = word_set("title_framing")
_FRAME_OPENING = re.compile(r"^(?:the )?(?:discourse|sutta|sermon) (?:on|of|about|to) ")
_VERSE_WORDS = word_set("verse_words")
_POET_TITLES = word_set("poet_titles")
_VERSE_BOOKS = ("Thag ", "Thig ")  # whose texts are titled by who speaks them


def verses_of(words: list[str], i: int, j: int) -> bool:
    """Whether the name `words[i:j]` is framed as the one who speaks a poem: "the verses of (the nun) Kisāgotamī",
    "Sivaka's verse". The Theragāthā's and Therīgāthā's texts are titled by their speakers, so such a name is
    their title, cued as "… Sutta" cues a discourse's. The window may hold the frame's last words ("of
    kisagotami")."""
    k = j - 1
    while k >= i and words[k] not in ("of", "by"):  # back over the name
        k -= 1
    while 0 <= k < i and words[k] in _POET_TITLES:  # and the titles before it ("the nun")
        k -= 1
    if k >= 1 and words[k] in ("of", "by") and words[k - 1] in _VERSE_WORDS:
        return True
    after = j + 1 if j < len(words) and words[j] == "s" else j
    return after < len(words) and after > j and words[after] in _VERSE_WORDS


def word_set_key(alias: str) -> str:
    """A title's naming words in a fixed order, whatever order and framing a reader writes them in: "Simile of the
    Snake" and "The Snake Simile" -> `simile snake`."""
    return " ".join(sorted({w for w in _words(alias) if w not in _FRAME_WORDS}))


def core_key(alias: str) -> str:
    """`The Kakacūpama-sutta` -> `kakacupama`: folded words, leading `the` and trailing `sutta` removed."""
    words = _words(alias)
    key = " ".join(words)
    key = _SUTTA_SUFFIX.sub("", key).strip()
    return _ARTICLE.sub("", key)


class AliasIndex:
    def __init__(self) -> None:
        self.keys: dict[str, list[AliasEntry]] = {}
        self.word_sets: dict[str, str] = {}  # word_set_key -> the key of the titles with those words
        self.titles: dict[str, str] = {}  # sutta_id -> English title, for display
        self._fuzzy_keys: list[str] = []

    @classmethod
    def build(cls, docstore: DocStore, nicknames_csv: Path | None = None, titles_csv: Path | None = None,
              cards: dict | None = None) -> AliasIndex:
        """Keys from every document's titles — its sutta card's when there is one (a card knows a text's own
        title inside a range file and never takes the chapter's name for it) — the nicknames CSV, and the table
        of other translations' titles."""
        index = cls()
        for doc in docstore.documents():
            if not doc.sutta_id or "@" in doc.doc_id:  # another translation's title names the same text
                continue
            card = (cards or {}).get(doc.doc_id)
            title, title_pali = (card.title, card.title_pali) if card is not None else (doc.title, doc.title_pali)
            index.titles[doc.sutta_id] = title or doc.title
            if title and not title.startswith("Dhammapada"):
                index.add(title, doc.sutta_id, "title")
            if title_pali:
                index.add(title_pali, doc.sutta_id, "title_pali")
            for name in doc.aliases:  # SuttaCentral's other names for the text: Pali if it ends like one
                index.add(name, doc.sutta_id, "title_pali" if _PALI_NAME.search(fold(name)) else "title")
        index.load_csv(CANON_NICKNAMES)
        if nicknames_csv and Path(nicknames_csv).exists():
            index.load_csv(Path(nicknames_csv))
        elif nicknames_csv:
            log.warning("nicknames file %s not found; titles only", nicknames_csv)
        if titles_csv and Path(titles_csv).exists():
            index.load_csv(Path(titles_csv), "other_title")
        index._fuzzy_keys = [k for k in index.keys if len(k) >= 6]
        return index

    def load_csv(self, path: Path, source: str = "nickname") -> None:
        for row in name_rows(path):
            alias, sutta_id = (row.get("alias") or "").strip(), (row.get("sutta_id") or "").strip()
            if alias and sutta_id:
                self.add(alias, sutta_id, source)

    def add(self, alias: str, sutta_id: str, source: str) -> None:
        key = core_key(alias)
        # a generic name ("the first discourse") names nothing, unless the curated nicknames give it to one text
        # as its name: "the First Sermon" is what readers call SN 56.11
        if not key or (not distinctive(key) and source != "nickname"):
            return
        variants = {key}
        if " " in key and source != "title":
            variants.add(key.replace(" ", ""))  # `anatta lakkhana` also as `anattalakkhana`
        self.word_sets.setdefault(word_set_key(alias), key)
        for k in variants:
            entries = self.keys.setdefault(k, [])
            if not any(e.sutta_id == sutta_id and e.source == source for e in entries):
                named = bool(_SUTTA_SUFFIX.search(" ".join(_words(alias)))) or source == "title_pali"
                entries.append(AliasEntry(sutta_id, alias, source, named))

    # ---- matching ----------------------------------------------------------------------------
    def _specific(self, key: str, entries: list[AliasEntry]) -> float:
        """Score of an uncued exact match: only names that could hardly be ordinary words in a question."""
        suttas = {e.sutta_id for e in entries}
        words = key.split()
        if any(e.source == "nickname" and not e.named_sutta for e in entries):
            return 100.0  # a curated English nickname ("the fire sermon") names its sutta without a cue
        if len(suttas) > 2:
            return 0.0  # a name many suttas share is a topic word, not a reference
        titled = any(e.source in ("title", "other_title") for e in entries)
        if titled and len(words) >= 3 and sum(w not in STOPWORDS for w in words) >= 2:
            return 85.0
        if any(e.named_sutta for e in entries) and len(key.replace(" ", "")) >= 9:
            return 85.0
        return 0.0

    def _score_entries(self, key: str, entries: list[AliasEntry], base: float, matched: str) -> list[AliasCandidate]:
        # A curated nickname is stronger evidence than a derived title when both name the same words, and a text's
        # own title than another translation's title for a different text ("Gilāna Sutta").
        out: dict[str, AliasCandidate] = {}
        for e in entries:
            score = base + {"nickname": 2.0, "other_title": -1.0}.get(e.source, 0.0)
            prev = out.get(e.sutta_id)
            if prev is None or prev.score < score:
                out[e.sutta_id] = AliasCandidate(e.sutta_id, self.titles.get(e.sutta_id, ""), e.alias, matched,
                                                 min(score, 100.0), e.source, HOW.get(e.source, e.source))
        return sorted(out.values(), key=lambda c: (-c.score, c.source != "nickname", c.sutta_id))

    def resolve(self, text: str, limit: int = 10) -> AliasResolution:
        """Sutta names in `text` (a bare name or a whole question), ranked; empty when nothing is confident."""
        words = _words(text)
        matches: list[AliasMatch] = []
        # The whole input is one name (the agent calling resolve_alias("kakacupama")): fuzzy is allowed.
        whole_key = core_key(text)
        if whole_key and len(words) <= MAX_WINDOW:
            whole_key = whole_key if whole_key in self.keys else self.word_sets.get(word_set_key(text), whole_key)
            if whole_key in self.keys:
                cands = self._score_entries(whole_key, self.keys[whole_key], 100.0, text.strip())
                matches.append(AliasMatch(text.strip(), 0, len(words), cands[0].score, cands[:limit]))
            elif len(whole_key) >= 6:
                m = self._fuzzy(whole_key, text.strip(), 0, len(words))
                if m:
                    matches.append(m)
        if not matches:
            matches = self._scan(words, text)
        return AliasResolution(text, [m for m in matches if m.score >= THRESHOLD])

    def _scan(self, words: list[str], text: str) -> list[AliasMatch]:
        found: list[AliasMatch] = []
        quoted = _quoted_phrases(text)
        n = len(words)
        # whether the word after a window is capitalised, so a title's name goes on past it ("the Discourse about
        # the Deity Suvīra" is not "the Discourse about the Deity"); unknown (no cue) if the words do not line up
        written = re.findall(r"[^\W_]+", text)
        capitals = [w[:1].isupper() for w in written] if len(written) == n else [True] * n

        def name_goes_on(j: int) -> bool:
            return j < n and capitals[j]

        for length in range(min(MAX_WINDOW, n), 0, -1):
            for i in range(0, n - length + 1):
                j = i + length
                if any(m.start < j and i < m.end for m in found):
                    continue  # inside a longer match already taken
                window = words[i:j]
                # "Sutta", "Sermon" after a window cue the name it ends; a name does not open with a function word
                # other than "the" ("According to the Fire Sermon": "to the fire" is no name, "the fire sermon" is)
                cue = j < n and words[j] in _CUE_AFTER and (window[0] == "the" or window[0] not in STOPWORDS)
                raw = " ".join(window)
                key = _SUTTA_SUFFIX.sub("", raw).strip()
                if key != raw:
                    cue = True  # `kakacupamasutta` / `... sutta` inside the window itself
                if _FRAME_OPENING.match(raw) and not name_goes_on(j):
                    cue = True  # "the Discourse on Love": the frame names what follows it, up to the name's end
                if key.startswith("the "):
                    key = key[4:]
                if not key:
                    continue
                candidates_keys = [key]
                if length > 1:
                    candidates_keys.append(key.replace(" ", ""))
                entries_key = next((k for k in candidates_keys if k in self.keys), None)
                if entries_key is None and length > 1:
                    # the same title in other words' order or framing: as specific as the reader's own words
                    entries_key = self._reordered(raw)
                if entries_key is not None:
                    entries = self.keys[entries_key]
                    verse_titles = [e for e in entries if e.sutta_id.startswith(_VERSE_BOOKS)]
                    if verse_titles and verses_of(words, i, j):  # "the verses of Kisāgotamī", not "With Kisāgotamī"
                        entries, cue = verse_titles, True
                    # a quoted word is a name when it reads as one ("the discourse called 'Burning'"); a single
                    # quoted word in a sentence is usually the text's own word ("has the 'beautiful' for ...")
                    named = raw in quoted and (length > 1 or (i > 0 and words[i - 1] in _CUE_NAMED))
                    base = 100.0 if (cue or named) else self._specific(entries_key, entries)
                    if base >= THRESHOLD and not (cue or named):
                        # uncued, each title must name its text on its own: a translation titled with a bare
                        # name ("Anāthapiṇḍika") does not ride on another text's "Anāthapiṇḍikasutta"
                        entries = [e for e in entries if self._specific(entries_key, [e]) >= THRESHOLD]
                    if base >= THRESHOLD and entries:
                        cands = self._score_entries(entries_key, entries, base, raw)
                        found.append(AliasMatch(raw, i, j, cands[0].score, cands))
                        continue
                if cue and len(key) >= 6 and key.split()[0] not in STOPWORDS:
                    m = self._fuzzy(key, raw, i, j)
                    if m:
                        found.append(m)
        found.sort(key=lambda m: m.start)
        return found

    def _reordered(self, raw: str) -> str | None:
        """The key of a title with the same naming words as `raw` in another order ("simile of the snake" ->
        `snake simile`); None when there is none or `raw` is only framing."""
        words = word_set_key(raw)
        if not words or not distinctive(words) or raw.split()[-1] in _FRAME_WORDS - {"sutta", "discourse", "sermon"}:
            return None
        return self.word_sets.get(words)

    def _fuzzy(self, key: str, raw: str, start: int, end: int) -> AliasMatch | None:
        # The likeness must hold on the distinctive words too: "the first sermon" is one letter-run away from
        # "the fire sermon", but all it shares with it is generic ("sermon"), so it names nothing.
        own = distinctive_words(key)
        if not own:
            return None
        best = next((hit for hit in process.extract(key, self._fuzzy_keys, scorer=fuzz.ratio, score_cutoff=86,
                                                    limit=5)
                     if fuzz.ratio(own, distinctive_words(hit[0])) >= _FUZZY_OWN_RATIO), None)
        if not best:
            return None
        match_key, score, _ = best
        cands = self._score_entries(match_key, self.keys[match_key], score * 0.97, raw)
        for c in cands:
            c.how = "fuzzy Pali title" if c.source == "title_pali" or c.alias.lower().endswith("sutta") \
                else f"fuzzy {HOW.get(c.source, c.source)}"
        return AliasMatch(raw, start, end, cands[0].score, cands)


_QUOTED = re.compile(rf"[{_QUOTES}]([^{_QUOTES}]{{1,80}})[{_QUOTES}]")


def _quoted_phrases(text: str) -> set[str]:
    # phrases between quotation marks, as folded words: `the "Burning" discourse` -> {"burning"}
    return {" ".join(_words(m.group(1))) for m in _QUOTED.finditer(text)}
