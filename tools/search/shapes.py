"""What the lines that answer a question look like, read from the question's form and the text's own structure.

Words alone pick the lines that share the question's words, which are often not the lines that answer it: asked
what the snake simile means, the sutta's list of similes for sensual pleasures ("like a snake's head") shares
"snake" more than the simile does, and the simile's point is said in the lines that apply it ("In the same way, a
futile person memorizes the teaching ..."). A question's form says which structure of the text answers:

- the meaning of a simile or comparison: the simile told ("Suppose ...") and the lines that apply it ("in the
  same way", "is a term for"), not a line that only names it;
- a list (methods, ways, remedies, "what are the four ..."): lines that enumerate, and the items of a list set out
  section by section (each opening alike: "Now, suppose that mendicant ...");
- a rule: its formulation ("is an offense entailing ...", "I allow ...", "should not ...");
- whether someone can or cannot: the lines that say who is capable or able;
- why: the lines that give a reason ("Why not? Because ...", "That's why I'm so upset");
- who someone was ("Who was Aṅgulimāla?"): the line that introduces them ("there was a bandit named Aṅgulimāla"),
  not the many that only name them;
- what someone's view was: the line that sets it out ("had the following harmful misconception: …"), not those that
  only name it ("to dissuade Sāti from his view").

`shape_credit` scores a window's text in [0, 1] for the question's shape; `parallel_sections` finds a text's
list set out over parallel sections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexing.text import tokenize
from tools.language.reasons import gives_reason
from tools.language.sentences import applies_a_simile, asked_clause
from tools.language.words import pattern

_ASKS_MEANING = re.compile(
    r"\b(?:mean|means|meaning|meant|illustrat\w*|stand[s]? for|symboli[sz]\w*|point of|lesson|signif\w*|"
    r"simile|similes|parable|metaphor|analogy|compar\w*|liken\w*)\b", re.IGNORECASE)
_ASKS_WHAT_IS = re.compile(r"^\W*what\s+(?:is|are|was|were)\b", re.IGNORECASE)
_ASKS_LIST = re.compile(
    r"\b(?:list|lists|listed|ways|methods|means of|steps|kinds|types|factors|remedies|remedy|practices|qualities|"
    r"things|items|stages|elements|how many|what are|which are|name the|advice|techniques|tips|how to|"
    r"deal(?:ing)? with|overcom\w*|get rid of|"
    r"two|three|four|five|six|seven|eight|nine|ten)\b", re.IGNORECASE)
_ENUMERATES = re.compile(
    r"\b(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth|fifth|furthermore|moreover|finally|"
    r"what (?:two|three|four|five|six|seven|eight|nine|ten)\b|these are the|"
    r"(?:two|three|four|five|six|seven|eight|nine|ten) (?:things|ways|kinds|qualities|factors|methods|subjects))",
    re.IGNORECASE)
_ASKS_RULE = re.compile(
    r"\b(?:rule|rules|offen[cs]es?|allowed|allow|permitted|permit|forbidden|forbid|prohibit\w*|training|"
    r"pātimokkha|patimokkha|vinaya|confess\w*|expel\w*|expulsion)\b", re.IGNORECASE)
_FORMULATES = re.compile(
    r"\b(?:offen[cs]e entailing|it is an offen[cs]e|there is no offen[cs]e|(?:i|we) allow|should not|must not|"
    r"may not|is not allowed|are not allowed|you should|should be|training rule|this is the rule|i lay down|"
    r"lay down a rule|expulsion|confession)\b", re.IGNORECASE)
ABILITY = re.compile(
    r"\b(?:can|cannot|can[’']t|could|couldn[’']t|able|unable|capable|incapable|possible|impossible)\b",
    re.IGNORECASE)
_LIST_ITEM_SEPARATORS = re.compile(r"[;,]")
_ASKS_REASON = re.compile(r"^\W*why\b|\bwhy (?:did|does|do|is|was|were|are|would|should|must|can|could)\b|"
                          r"\bfor what reason\b|\bwhat (?:is|was) the reason\b|\bhow come\b", re.IGNORECASE)


_ASKS_IDENTITY = pattern("asks_identity")
_INTRODUCES = pattern("introduces")
_ASKS_VIEW = re.compile(pattern("asks_view").pattern, re.IGNORECASE)
_STATES_VIEW = re.compile(pattern("states_view").pattern, re.IGNORECASE)
_ASKS_OVERVIEW = re.compile(pattern("asks_overview").pattern, re.IGNORECASE)
# "What does the next verse say?" asks for a part read on to, not for the whole text
_READS_ON = [re.compile(pattern(name).pattern, re.IGNORECASE) for name in ("next", "before", "one_unit")]


def asks_overview(question: str) -> bool:
    """The question asks what a text is about as a whole ("What is the Anattalakkhana Sutta about?", "Summarize
    MN 10"), not about something in it ("What does MN 21 say about anger?") or a part read on to ("What does the
    next verse say?")."""
    q = question.strip()
    return bool(_ASKS_OVERVIEW.search(q)) and not any(p.search(q) for p in _READS_ON)


@dataclass(frozen=True)
class Shape:
    """The kinds of line the question asks for (any number of them may hold)."""

    meaning: bool = False
    items: bool = False
    rule: bool = False
    ability: bool = False
    reason: bool = False
    identity: bool = False
    view: bool = False

    @property
    def any(self) -> bool:
        return self.meaning or self.items or self.rule or self.ability or self.reason or self.identity or self.view


def shape_of(question: str) -> Shape:
    """The kinds of line the question asks for, read from what it asks, not from what it takes as known ("In the
    simile of the poisoned arrow, what does the wounded man insist on knowing?" asks for no simile's meaning)."""
    asked = asked_clause(question)
    # "In the simile of the two arrows, what is the second arrow?" asks what the second arrow stands for
    meaning = bool(_ASKS_MEANING.search(asked) or _ASKS_MEANING.search(question) and _ASKS_WHAT_IS.match(asked))
    return Shape(meaning=meaning, items=bool(_ASKS_LIST.search(asked)),
                 rule=bool(_ASKS_RULE.search(asked)), ability=bool(ABILITY.search(asked)),
                 reason=bool(_ASKS_REASON.search(asked)), identity=bool(_ASKS_IDENTITY.search(asked)),
                 view=bool(_ASKS_VIEW.search(asked)))


def shape_credit(shape: Shape, text: str) -> float:
    """How well a window's text has the structure the question asks for, in [0, 1]: the share of the question's
    kinds of line it holds."""
    if not shape.any:
        return 0.0
    asked = [shape.meaning, shape.items, shape.rule, shape.ability, shape.reason, shape.identity, shape.view]
    held = [
        shape.meaning and applies_a_simile(text),
        shape.items and (bool(_ENUMERATES.search(text)) or len(_LIST_ITEM_SEPARATORS.findall(text)) >= 3),
        shape.rule and bool(_FORMULATES.search(text)),
        shape.ability and bool(ABILITY.search(text)),
        shape.reason and gives_reason(text),
        shape.identity and bool(_INTRODUCES.search(text)),
        shape.view and bool(_STATES_VIEW.search(text)),
    ]
    return sum(held) / sum(asked)


MIN_SECTIONS = 3  # a list set out section by section has at least this many parallel sections
SIMILAR_OPENINGS = 0.5  # share of words two section openings have in common to be items of one list


def parallel_sections(openings: list[tuple[str, str]]) -> list[int]:
    """Indexes of the longest run of consecutive sections whose openings are alike (MN 20's five ways: "Take a
    mendicant who is focusing on some subject ...", "Now, suppose that mendicant is focusing on ..."), given each
    section's (key, opening text) in reading order; [] when no run of MIN_SECTIONS is found."""
    tokens = [set(tokenize(text)) for _, text in openings]
    best: list[int] = []
    run: list[int] = []
    for i, words in enumerate(tokens):
        if run and _alike(tokens[run[-1]], words):
            run.append(i)
        else:
            run = [i]
        if len(run) > len(best):
            best = list(run)
    return best if len(best) >= MIN_SECTIONS else []


def _alike(a: set[str], b: set[str]) -> bool:
    if not a or not b:
        return False
    return len(a & b) / min(len(a), len(b)) >= SIMILAR_OPENINGS
