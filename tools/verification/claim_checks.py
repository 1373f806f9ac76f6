"""Consistency checks between a claim and its evidence: numbers, named people and places, polarity.

These catch what similarity cannot: "seven subjects" and "five subjects" overlap almost entirely, but one is wrong.
Each check returns a short reason ("number differs: seven vs five") or None.
"""

from __future__ import annotations

import re

from tools.language.denials import denied_sentences, polarity_said, reports_saying
from tools.language.negation import (
    ANTONYMS,
    is_negation_word,
    negates,
    negates_without_a_negation_word,
    polarity,
    words_after_negations,
)
from tools.language.numbers import is_number_word, number_phrases, number_words, numbers
from tools.language.reasons import (
    answers_why,
    asserts_instruction,
    asserts_reason,
    gives_reason,
    instructs,
    narrates,
)
from tools.language.sentences import clauses, phrases, split_sentences
from tools.language.words import STOPWORDS, fold, folded_words, light_stem, pattern, tokenize, word_list, word_set
from tools.references import MENTION

# "four kinds of feeling": what is counted is the feeling, not the kinds.
_MEASURE = word_set("measure_words")
_NOT_COUNTED = STOPWORDS | word_set("not_counted")


NEAR = 3  # words after a number that may name what it counts ("five grasping aggregates")


def _counts(text: str) -> list[tuple[int, list[str]]]:
    """Each cardinal number of `text` with the stemmed content words among the next three of its clause."""
    out: list[tuple[int, list[str]]] = []
    for piece in phrases(MENTION.sub(" ", text)):  # "MN 26 says", "SN 22.95": references count nothing
        words = number_words(piece)
        for value, _, after, ordinal in number_phrases(words):
            if ordinal or after >= len(words):
                continue
            if words[after] in _MEASURE and after + 2 < len(words) and words[after + 1] == "of":
                after += 2
            nouns: list[str] = []
            for i, noun in enumerate(words[after : after + NEAR]):
                if is_number_word(noun):
                    break
                if noun in _NOT_COUNTED:
                    if i == 0:
                        break  # "four of them": the number counts nothing it names
                    continue
                nouns.append(light_stem(noun))
            if nouns:
                out.append((value, nouns))
    return out


def counted(text: str, near: bool = False) -> set[tuple[int, str]]:
    """Cardinal numbers with the word they count, stemmed: "these six drains on wealth" -> (6, "drain");
    "four kinds of feeling" -> (4, "feel"). A number followed by a function word ("four of them") counts
    nothing it names. With `near`, each content word among the next three of the same clause is paired with the
    number: "five grasping aggregates" -> (5, "grasp"), (5, "aggregate")."""
    return {(value, n) for value, nouns in _counts(text) for n in (nouns if near else nouns[:1])}


def count_check(claim: str, evidence: str | tuple[set[tuple[int, str]], set[tuple[int, str]]]) -> str | None:
    """A number counting something the evidence counts with another number, and never with the claim's:
    "four drains on wealth" where the text has only "six drains on wealth". Numbers the evidence does not pair
    with that word prove nothing ("seven days" against a text that never counts days), nor does a count the text
    words a little differently ("the five aggregates" where it says "the five grasping aggregates").
    `evidence` is text or its `counted` pairs (next word, near words)."""
    seen, near = (counted(evidence), counted(evidence, near=True)) if isinstance(evidence, str) else evidence
    for value, nouns in _counts(claim):
        if any((value, w) in near for w in nouns):
            continue
        other = sorted(v for v, n in seen if n == nouns[0] and v != value)
        if other:
            return f"number differs: {value} {nouns[0]} vs {_num_list(other)} {nouns[0]}"
    return None


def number_check(claim: str, evidence: str) -> str | None:
    claimed, seen = numbers(claim), numbers(evidence)
    missing = sorted(claimed - seen)
    other = sorted(seen - claimed)
    if missing and other:
        return f"number differs: {_num_list(missing)} vs {_num_list(other)}"
    return None


def _num_list(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def count_holder_check(claim: str, claim_names: dict[str, str], segments: list[str],
                       lowercase_vocab: set[str] | frozenset[str] = frozenset(),
                       counts: list[set[tuple[int, str]]] | None = None) -> str | None:
    """A number the text says of someone else: "Uddaka had died seven days before" where the only "seven days" of
    the text is said of Āḷāra ("Āḷāra Kālāma passed away seven days ago"), and Uddaka is nowhere near it.
    Fires only when every segment counting that thing names another person and none of the claim's names is within
    two segments of it; a segment that names nobody ("he stayed seven days") may be about anyone."""
    if not claim_names:
        return None
    counts = counts if counts is not None else [counted(seg) for seg in segments]
    for value, noun in sorted(counted(claim)):
        at = [i for i, found in enumerate(counts) if (value, noun) in found]
        if not at:
            continue
        holders: dict[str, str] = {}
        for i in at:
            region = fold(" ".join(segments[max(0, i - 2) : i + 3]))
            if any(_name_in(k, region) for k in claim_names):
                return None
            here = {k: w for k, w in names(segments[i], lowercase_vocab).items()
                    if k not in claim_names and not spoken_to(w, segments[i])}
            if not here:
                return None
            holders.update(here)
        return f"{value} {noun} is said of {', '.join(holders.values())}, not {', '.join(claim_names.values())}"
    return None


def spoken_to(word: str, text: str) -> bool:
    """"Ānanda, for seven days …", "… seven days, Ānanda.": the person spoken to, not the one the number is about."""
    return re.search(rf"(?:^|[‘“\"(]|,\s)\s*{re.escape(word)}\s*[,.!?’”\"]", text.strip()) is not None


# ---- names ---------------------------------------------------------------------------------------------------
_CAP = re.compile(r"(?<![\w’'])([A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+(?:[-’'][A-Za-zāīūṅñṭḍṇḷṁṃ]+)?)")
# Capitalised words that are titles or epithets, not names that could be swapped for one another.
GENERIC = {fold(w) for w in word_list("not_names")}


def names(text: str, lowercase_vocab: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """Capitalised words that are not sentence-initial, not generic titles, and never written lowercase in the
    source (`lowercase_vocab`: folded words the sutta uses in lowercase) -> folded key to the word as written."""
    out: dict[str, str] = {}
    for m in _CAP.finditer(text):
        word = m.group(1)
        before = text[: m.start()].rstrip()
        quote_after_stop = before.endswith(("”", "’")) and before[:-1].rstrip()[-1:] in ".!?,"
        if not before or before[-1] in ".!?:;“\"‘(—[" or quote_after_stop:
            continue  # sentence or quotation start: capitalised for grammar, not because it is a name
        key = fold(re.sub(r"[’']s$", "", word))
        if key in GENERIC or key in lowercase_vocab or len(key) < 3:
            continue
        prefix = _NAME_BEFORE.search(before + " ") if text[m.start() - 1 : m.start()] == " " else None
        out[key] = f"{prefix.group(1)} {word}" if prefix else word
    return out


# A capitalised word right before a name: "Maha Kassapa", which the texts write as one word, Mahākassapa
_NAME_BEFORE = re.compile(r"(?<![\w’'])([A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+) $")


def joined_name(key: str, word: str) -> str:
    """A name of the claim (`names`' key and word) written in two words ("Maha Kassapa") as the one word the texts
    use ("mahakassapa"); any other name, its key."""
    return fold(re.sub(r"[’']s$", "", word.replace(" ", ""))) if " " in word else key


def name_present(key: str, word: str, folded_text: str) -> bool:
    """Whether a name of the claim is in the folded text: as written, or as the one word the texts use."""
    return _name_in(key, folded_text) or _name_in(joined_name(key, word), folded_text)


def _name_in(key: str, folded_text: str) -> bool:
    # Pali names inflect a little in English text (Sāriputta's, Kosalans); a shared stem is enough.
    stem = key[: max(4, len(key) - 2)]
    return re.search(rf"\b{re.escape(stem)}", folded_text) is not None


def name_check(claim_names: dict[str, str], evidence: str, evidence_names: dict[str, str]) -> str | None:
    folded = fold(evidence)
    missing = [w for k, w in claim_names.items() if not name_present(k, w, folded)]
    claim_folded = " ".join(claim_names)
    other = [w for k, w in evidence_names.items() if not _name_in(k, claim_folded)]
    if missing and other:
        return f"person differs: {', '.join(missing)} vs {', '.join(other)}"
    return None


# ---- polarity ------------------------------------------------------------------------------------------------
# A quotation in double quotes, or in single ones; inside single quotes a ’ between letters is an apostrophe
# ("don’t"), and inside double quotes any ’ is: a quotation holding "don’t" was not read as one, and its "not" was
# taken for the claim's own
_QUOTED = re.compile(r"[“\"]([^“”\"]{3,400})[”\"]|‘((?:[^‘’]|’(?=\w)){3,400})’(?!\w)")


_DOUBLE_QUOTED = re.compile(r"[“\"]([^“”\"]{12,600})[”\"]")
MIN_QUOTED_WORDS = 4


def plain_words(text: str) -> str:
    """Folded words and numbers only, one space apart: what a quotation and its source must share verbatim."""
    return " ".join(folded_words(text))


def quotations(claim: str) -> list[str]:
    """The claim's quotations: each piece (between ellipses) of a double-quoted span, four words or more."""
    return [piece.strip() for m in _DOUBLE_QUOTED.finditer(claim) for piece in re.split(r"…|\.\.\.", m.group(1))
            if len(plain_words(piece).split()) >= MIN_QUOTED_WORDS]


def misquoted(claim: str, source_words: str) -> str | None:
    """A quotation in the claim (in double quotes, four words or more; each piece between ellipses on its own) that
    the source does not hold word for word ("… lives soiled by it" where the text has "unsoiled"). `source_words`
    is the source as `plain_words` gives it."""
    for m in _DOUBLE_QUOTED.finditer(claim):
        for piece in re.split(r"…|\.\.\.", m.group(1)):
            words = plain_words(piece)
            if len(words.split()) >= MIN_QUOTED_WORDS and f" {words} " not in f" {source_words} ":
                return f"misquoted: “{piece.strip()[:60]}”"
    return None


MAX_OMITTED = 2  # words a quotation may have left out of its source and still be mended to the source's words
# between two quoted words of a quotation to mend: up to MAX_OMITTED words left out
_OMISSION = r"\W+(?:[\w’']+\W+){0,MAX}?".replace("MAX", str(MAX_OMITTED))


def mend_quotations(claim: str, source: str) -> str | None:
    """The claim with each quotation the source does not hold word for word put back into the source's own words,
    where the quotation only left out a word or two between its first and last ("Neither standing nor swimming, I
    crossed the flood" for "… swimming, sir, I crossed …"); None when a quotation cannot be mended so (a word
    changed, more left out, or a negation or number left out: those change what it says)."""
    folded = fold(source)
    if len(folded) != len(source):  # offsets in the folded text must be the source's
        return None
    source_words = f" {' '.join(folded_words(source))} "
    out, mended = claim, False
    for m in _DOUBLE_QUOTED.finditer(claim):
        said = folded_words(m.group(1))
        if len(said) < MIN_QUOTED_WORDS or f" {' '.join(said)} " in source_words:
            continue
        pattern = r"(?<![\w’'])" + _OMISSION.join(re.escape(w) for w in said) + r"(?![\w’'])"
        found = next((f for f in re.finditer(pattern, folded)
                      if len(folded_words(f.group(0))) - len(said) <= MAX_OMITTED), None)
        if found is None:
            return None
        exact = source[found.start():found.end()]
        omitted = _omitted(said, folded_words(exact))
        if negates(" ".join(omitted)) or numbers(" ".join(omitted)):
            return None
        out = out.replace(m.group(1), re.sub(r"[“”\"]", "", exact), 1)
        mended = True
    return out if mended else None


def _omitted(said: list[str], source: list[str]) -> list[str]:
    """The source's words a quotation (a subsequence of them) left out."""
    out, i = [], 0
    for word in source:
        if i < len(said) and word == said[i]:
            i += 1
        else:
            out.append(word)
    return out


def without_own_quotes(claim: str, evidence: str) -> str:
    """The claim with its quotations of the evidence taken out: a "never" inside the text's own words is the
    text's negation, quoted faithfully, not the claim negating the text."""
    folded = " ".join(fold(evidence).split())

    def drop(m: re.Match) -> str:
        quoted = " ".join(fold(m.group(1) or m.group(2)).split()).strip(" .,;:!?")
        return " " if quoted and quoted in folded else m.group(0)

    return _QUOTED.sub(drop, claim)


def _asserts_what_is_denied(claim: str, evidence: list[tuple[str, set[str]]]) -> bool:
    """A claim with no negation that holds every word of a negative clause of the evidence, where no positive clause
    holds them: "crossed the flood by standing … and by swimming" against "I crossed the flood neither standing
    nor swimming". The claim is too long for the clause check to pair it with that clause, but it says what the
    text denies."""

    if negates(claim) or negates_without_a_negation_word(claim):
        return False
    words = set(tokenize(claim))
    content = [(c, {t for t in w if len(t) > 1 and not is_negation_word(t)}) for c, w in evidence]
    covered = [(polarity(c), w) for c, w in content if len(w) >= 3 and w <= words]
    denied = [w for neg, w in covered if neg]
    affirmed = set().union(*(w for neg, w in covered if not neg))
    # A positive clause the claim also holds clears it only when it speaks of the same things ("the noble disciple
    # understands this" beside "the ordinary person does not understand this"); one about something else ("it is
    # corrupted by passing corruptions") leaves the denial standing.
    return any(not (w & affirmed) for w in denied)


def _negates_what_the_text_says(clause: str, evidence_words: set[str]) -> bool:
    """Whether the word a negative clause negates is one the evidence clause says: "are not personal matters"
    against "are personal matters" is; "who does not practise will miss out on the blessings" against "they miss
    out on the blessings" is not (its "not" belongs to a line the match left out)."""

    for after in words_after_negations(clause):
        negated = set(tokenize(after[0])) if after else set()
        if not negated or negated & evidence_words:
            return True
    return False


def _said_in_a_phrase(words: set[str], clause: str) -> bool:
    """Whether one phrase of the clause (cut at commas) without a negation holds most of `words` (three at least)."""
    need = max(3, 0.6 * len(words))
    return any(not polarity(phrase) and len(words & set(tokenize(phrase))) >= need
               for phrase in re.split(r"[,;:—]", clause))


def _denies_the_same(clause: str, evidence: str) -> bool:
    """Both deny the same word: "the abuse he will not accept" against "who do not abuse …, we don't accept it",
    a clause whose two negations make its polarity read as positive."""
    def denied(text: str) -> set[str]:
        return {t for after in words_after_negations(text) if after for t in tokenize(after[0])}

    mine = denied(clause)
    return bool(mine) and mine <= denied(evidence)


def negation_check(claim: str, evidence: str) -> str | None:
    """Each clause of the claim against the evidence clause sharing most content words with it: a clause that
    says the same thing with the opposite polarity is a negation."""

    claim = without_own_quotes(claim, evidence)
    # a sentence the next one denies ("Would the Ganges become salty?" "No, sir.") says the opposite of its words,
    # unless the claim only reports it as said or asked
    reports = reports_saying(MENTION.sub(" ", claim))
    judged = [(c, set(tokenize(c)), denied and not reports) for sentence, denied in denied_sentences(evidence)
              for c in clauses(sentence) or [sentence]] or [(evidence, set(tokenize(evidence)), False)]
    ev = [(c, w) for c, w, _ in judged]
    for clause in clauses(claim, commas=True) or [claim]:
        words = set(tokenize(clause))
        if len(words) < 3:
            continue
        best, best_words, denied = max(judged, key=lambda x: len(words & x[1]))
        # a denied sentence is read whole, and so is the claim against it: its parity is the sentence's ("Without
        # X, I will Y." "That is not possible." against "without X one cannot Y"), which a clause cut at the comma
        # ("one cannot Y") does not have
        said, meant = polarity_said(claim) if denied else polarity(clause), polarity(best) ^ denied
        if len(words & best_words) >= max(3, 0.6 * len(words)) and said != meant:
            if said and not _negates_what_the_text_says(clause, best_words):
                continue
            # a clause the text says in a phrase of its own, free of the negation, is not denied by it: "given
            # over to rapture and bliss" against "… without moving, given over to rapture and bliss"
            if not denied and meant and not said and _said_in_a_phrase(words, best):
                continue
            if not denied and _denies_the_same(clause, best):
                continue
            return "negated"
    if _asserts_what_is_denied(claim, ev):
        return "negated"
    c, e = (set(tokenize(t, stem=False, drop_stopwords=False)) for t in (claim, evidence))
    for a, b in ANTONYMS:
        if (a in c and b in e and a not in e and b not in c) or (b in c and a in e and b not in e and a not in c):
            return f"negated: {a if a in c else b} vs {b if a in c else a}"
    return None


_POSSESSES = re.compile(pattern("possesses").pattern, re.IGNORECASE)
_GIVEN_UP_PASSIVE = re.compile(pattern("given_up_passive").pattern, re.IGNORECASE)
_GIVEN_UP_ACTIVE = re.compile(pattern("given_up_active").pattern, re.IGNORECASE)
GIVEN_UP_WORDS = 3  # content words the sentence says are had and the lines name only as given up


def given_up_check(claim: str, cited: list[str]) -> str | None:
    """A sentence that says something has what its lines say it has given up: "It has five factors, including
    sensual desire, ill will, …" of MN 43's "sensual desire, ill will, … are given up. Placing the mind … are
    present". What it says is had (its words after "has", "includes" …) must be named in the lines where something
    is given up (before a passive "are given up", after an active "has given up"), `GIVEN_UP_WORDS` content words
    of it at least, and nowhere else in them. A sentence that itself says giving up, or negates, is not read."""
    if negates(claim) or negates_without_a_negation_word(claim):
        return None
    m = _POSSESSES.search(claim)
    if m is None:
        return None
    had = set(tokenize(claim[m.end():]))
    given: set[str] = set()
    elsewhere: set[str] = set()
    for line in cited:
        for sentence in (s.text for s in split_sentences(line)):
            passive, active = _GIVEN_UP_PASSIVE.search(sentence), _GIVEN_UP_ACTIVE.search(sentence)
            if passive is not None:
                given |= set(tokenize(sentence[: passive.start()]))
            elif active is not None:
                given |= set(tokenize(sentence[active.end():]))
            else:
                elsewhere |= set(tokenize(sentence))
    only_given = (had & given) - elsewhere
    if len(only_given) >= GIVEN_UP_WORDS:
        return "negated: it says is had what the text says is given up"
    return None


_LIKENS = re.compile(pattern("likens").pattern, re.IGNORECASE)
# "form and feeling": not "…, and the bowl", where "and" joins another clause
_PAIR = re.compile(r"\b(\w+)\s+and\s+(?:the\s+|a\s+|an\s+)?(\w+)$")


def likened_pair_check(claim: str, text: list[str]) -> str | None:
    """A sentence that likens two things to one ("form and feeling are compared to a big lump of foam") where the
    text likens one of them to it and not the other (SN 22.95: "Form is like a lump of foam; feeling is like a
    bubble"). Each thing is paired when one line of `text` (the cited text's lines) holds it with at least half the
    words of what it is likened to. A finding only where one is paired and the other is not: where neither is, the
    text says it otherwise than line by line, and the other checks judge it."""
    m = _LIKENS.search(claim)
    pair = _PAIR.search(claim[: m.start()].strip()) if m else None
    if m is None or pair is None:
        return None
    things = [set(tokenize(pair.group(1))), set(tokenize(pair.group(2)))]
    likened = set(tokenize(claim[m.end():])) - things[0] - things[1]
    if not all(things) or not likened:
        return None
    lines = [set(tokenize(line)) for line in text]

    def paired(thing: set[str]) -> bool:
        return any(thing <= held and 2 * len(likened & held) >= len(likened) for held in lines)

    held = [paired(thing) for thing in things]
    if any(held) and not all(held):
        return "the text likens only one of the two things it names to this"
    return None


def claims_a_reason(claim: str) -> bool:
    """The sentence, outside its quotations, gives a reason ("… because …"): a reason quoted in the text's own
    words is the text's."""
    return asserts_reason(_QUOTED.sub(" ", claim))


def instruction_check(claim: str, cited: list[str]) -> str | None:
    """A sentence that says what someone should do ("The mendicant should think bad thoughts, which are sensual,
    malicious, and cruel") says the text tells it: asked how to deal with something, a small model turns the story
    of what someone did ("that mendicant … was thinking bad, unskillful thoughts") into advice. A finding only where
    no cited line tells what to do and one tells what someone was doing; `cited` empty (no lines known): none."""
    if not cited or not asserts_instruction(_QUOTED.sub(" ", claim)):
        return None
    if any(instructs(line) for line in cited) or not any(narrates(line) for line in cited):
        return None
    return "the cited lines tell what someone did, not what to do"


def reason_check(claim: str, cited: list[str]) -> str | None:
    """A sentence that claims a reason ("… stopped because he wanted to hear the verse") says the text gives it: one
    of the lines it cites must give a reason. Asked why, a small model joins two true lines of a story with
    "because", and each half's words are in the lines; that the one explains the other is the model's. `cited`
    empty (the whole text cited, or no line known): no finding."""
    if not cited or not claims_a_reason(claim) or any(gives_reason(line) for line in cited) or answers_why(cited):
        return None
    return "the cited lines give no reason"

