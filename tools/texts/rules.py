"""The Vinaya's rules by topic: "May a monk dig the ground?" -> Bu Pc 10, its rule quoted with its offence class.

Built from the texts' own structure, never from a table of cases: each rule of the Analyses (`pli-tv-bu-vb-*`,
`pli-tv-bi-vb-*`) is announced by a heading ("The training rule on digging the earth"), sits in a chapter named for
its class ("The chapter on offenses entailing confession") and is laid down under a "Final ruling" heading whose
next lines are the rule itself ("If a monk digs the earth or has it dug, he commits an offense entailing
confession."). The class is the one the rule's own words name, else its chapter's.

The index is read from the docstore once per process (`Library.rules`): it is derived from what ingest wrote and
costs well under a second to build.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from indexing.vocabulary import BOOKS, is_heading, parse_uid
from tools.language.words import fold, word_set
from tools.texts.table_text import Piece, introducing, said

_RULE_HEADING = re.compile(r"\btraining rule\b|\brule on\b", re.I)
_CHAPTER = re.compile(r"^the chapter on (?:offen[cs]es? (?:entailing|of) )?(.+)$", re.I)
_CLASS_IN_RULING = re.compile(r"offen[cs]e (?:entailing|of) ([a-z ]+?)(?=[.,;:’'”\"]|$)", re.I)
_TOPIC = re.compile(r"^(?:\d+\.\s*)?(?:the )?(?:\w+ )?training rule on (.+)$", re.I)
_WORD = re.compile(r"[a-z]+")
_MAX_RULING_SEGMENTS = 4
# words of every question about conduct: who, may, allowed; they pick no rule out
_NOISE = word_set("rule_question_noise")


_WHO = re.compile(r"\b(?:monks?|nuns?|bhikkhus?|bhikkhunis?|monastics?|mendicants?|the sangha)\b")
_RULE_WORDS = re.compile(r"\b(?:allowed|allow|may|permitted|permissible|can|could|forbidden|forbid|prohibited|"
                         r"rules?|offen[cs]es?|vinaya|against|ok|okay)\b")
_RULE_NAMED = re.compile(r"\b(?:monastic|vinaya|training|pat[iī]mokkha) rules?\b|\brule (?:on|about|against)\b")


# a question about a rule's story (who, why, what happened, where it began) is answered from the origin story's
# passages, not from the rule's words
_STORY = re.compile(r"\b(?:who|whom|whose|why|when|where|happened|happen|story|stories|began|begin|origin|"
                    r"led to|leading to|lead to|caused?|prompted|occasion\w*|chapter)\b")


def asks_for_rule(question: str) -> bool:
    """The question asks what the monastic rules say ("May a monk dig the ground?", "the rule on lying"), not how
    a rule came to be laid down ("Who saw the monks playing in the water, which led to the rule?")."""
    folded = fold(question)
    if _STORY.search(folded):
        return False
    return bool(_RULE_NAMED.search(folded) or (_WHO.search(folded) and _RULE_WORDS.search(folded)))


def stem(word: str) -> str:
    """A light English stem for matching a question's words to a rule's: digs, digging, dug-out -> dig; lies, lying
    -> lie. (The index's BM25 stemmer keeps `digg` and `ly`, which a rule's title and a question rarely share.)"""
    w = word.lower()
    if w.endswith("ying") and len(w) <= 6:
        return w[:-4] + "ie"
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def terms(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(fold(text)) if w not in _NOISE and len(w) > 1]


@dataclass(frozen=True)
class Rule:
    doc_id: str
    sutta_id: str  # `Bu Pc 10`
    title: str  # "The training rule on digging the earth"
    offence: str  # "confession", "relinquishment and confession", "expulsion"
    offence_pali: str  # "Bhikkhu Pācittiya": the class as the book names it
    seg_ids: tuple[str, ...]  # the rule as laid down (the "Final ruling")
    ruling: str
    ruling_pali: str
    summary: str = ""  # SuttaCentral's one-line summary of the rule ("A monk who digs the earth must confess ...")

    @property
    def topic(self) -> str:
        m = _TOPIC.match(self.title)
        return m.group(1) if m else self.title

    @property
    def nuns(self) -> bool:
        return self.doc_id.startswith("pli-tv-bi-")

    @property
    def ref(self) -> str:
        from indexing.vocabulary import segment_ref

        first, last = self.seg_ids[0], self.seg_ids[-1]
        ref = segment_ref(first)
        return ref if first == last else f"{ref}–{last.partition(':')[2]}"

    def describe(self) -> tuple[Piece, Piece]:
        """Which rule and its class, then its words."""
        who = "nuns" if self.nuns else "monks"
        return (said(f"{self.sutta_id}, “{self.title.rstrip('.')}”, is the Vinaya's rule for {who} on this: breaking "
                     f"it is an offense entailing {self.offence} ({self.offence_pali})."),
                introducing(f"It reads: “{self.ruling.strip(' ‘’“”')}”", (self.ref,)))


@dataclass
class RuleMatch:
    rule: Rule
    score: float
    matched: list[str]  # the question's words the rule's title or wording holds
    asked: int = 1  # how many distinctive words the question had

    @property
    def confident(self) -> bool:
        """The rule's title names what the question asks about, or its words hold most of the question's: a rule
        sharing one passing word ("attain", "eat") is no answer to give without a reader's judgement."""
        in_title = set(self.matched) & set(terms(self.rule.topic))
        return bool(in_title) or len(self.matched) >= max(2, (self.asked + 1) // 2)


class RuleIndex:
    """Every rule of the two Analyses, searchable by the words of its title and of the rule itself."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self._title = [set(terms(r.topic)) for r in rules]
        # the Pali too: a reader may name the thing as the rule does ("jātarūparajata", "pathavī")
        self._body = [set(terms(f"{r.ruling} {r.summary} {r.ruling_pali}")) for r in rules]
        df = Counter(t for title, body in zip(self._title, self._body) for t in title | body)
        n = max(len(rules), 1)
        self._idf = {t: math.log(1 + n / c) for t, c in df.items()}

    @classmethod
    def build(cls, docstore) -> RuleIndex:
        rules: list[Rule] = []
        for doc in docstore.documents():
            if "@" in doc.doc_id or not doc.doc_id.startswith(("pli-tv-bu-vb-", "pli-tv-bi-vb-")):
                continue
            rules.extend(_rules_of(doc, docstore.segments(doc.doc_id)))
        return cls(rules)

    def __len__(self) -> int:
        return len(self.rules)

    def find(self, question: str, limit: int = 3) -> list[RuleMatch]:
        """The rules a question's words point to, best first. Words in a rule's title count double: the title names
        what the rule is about, the wording also names its circumstances. A question about nuns ("may a nun ...")
        looks in the nuns' rules first, any other in the monks'."""
        asked = list(dict.fromkeys(terms(question)))
        if not asked:
            return []
        folded = set(_WORD.findall(fold(question)))
        nuns = bool(folded & {"nun", "nuns", "bhikkhuni", "bhikkhunis"})
        out = []
        for rule, title, body in zip(self.rules, self._title, self._body):
            score, matched = 0.0, []
            for t in asked:
                if t in title or t in body:
                    score += self._idf.get(t, 0.0) * (2.0 if t in title else 1.0)
                elif len(t) >= 3 and (word := next((w for w in title | body if w.startswith(t)), None)):
                    score += 0.7 * self._idf.get(word, 0.0)  # "sex" in "sexual"
                else:
                    continue
                matched.append(t)
            if not matched:
                continue
            score *= 1.0 if rule.nuns == nuns else 0.8
            out.append(RuleMatch(rule, score, matched, len(asked)))
        out.sort(key=lambda m: (-m.score, m.rule.nuns != nuns, _order(m.rule.doc_id)))
        return out[:limit]

    def by_id(self, sutta_id: str) -> Rule | None:
        key = fold(sutta_id).replace(" ", "")
        return next((r for r in self.rules if fold(r.sutta_id).replace(" ", "") == key), None)


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html or "").strip()


def _order(doc_id: str) -> tuple:
    nums = re.findall(r"\d+", doc_id)
    return (doc_id.rstrip("0123456789-"), [int(n) for n in nums])


def _rules_of(doc, segments) -> list[Rule]:
    """Each rule laid down in one document: the "Final ruling" lines under the last rule heading before them."""
    parsed = parse_uid(doc.doc_id)
    book = BOOKS.get(parsed.book) if parsed is not None else None
    title = chapter = ""
    out: list[Rule] = []
    # the document's opening headings (`0.3` the chapter, `0.5` the rule) are kept apart from its segments
    from indexing.stores.docstore import SegmentRecord

    heads = [SegmentRecord(seg_id, doc.doc_id, -1, text, "", None, "") for seg_id, text in doc.headers.items()]
    segs = [s for s in [*heads, *segments] if s.seg_id]
    for i, seg in enumerate(segs):
        text = seg.en.strip()
        if not is_heading(seg.seg_id) or not text:
            continue
        if (m := _CHAPTER.match(text)) and not chapter:
            chapter = m.group(1).strip()
        elif _RULE_HEADING.search(text) and len(text) < 120 and not text.lower().startswith("venerables"):
            title = text
        elif fold(text) == "final ruling" and title:
            body: list[SegmentRecord] = []
            for nxt in segs[i + 1:]:
                if is_heading(nxt.seg_id) or len(body) >= _MAX_RULING_SEGMENTS:
                    break
                if nxt.en.strip():
                    body.append(nxt)
            if not body:
                continue
            ruling = " ".join(s.en.strip() for s in body)
            found = _CLASS_IN_RULING.search(ruling)
            offence = found.group(1).strip().lower() if found else chapter.lower()
            out.append(Rule(doc.doc_id, doc.sutta_id or doc.doc_id, title, offence or "an offense",
                            book.pali if book is not None else "", tuple(s.seg_id or "" for s in body), ruling,
                            " ".join(s.pali.strip() for s in body), _plain(doc.blurb)))
    # a rule amended after its first ruling ("Final ruling" twice): the last ruling is the rule in force
    latest: dict[str, Rule] = {}
    for rule in out:
        latest[rule.title] = rule
    return list(latest.values())
