"""Who speaks each line of a text, where the text itself says so.

The suttas tell dialogue in quotations: a line introduces one ("King Pasenadi sat to one side, and the Buddha said
to him,"), and the replies that follow often go untagged, each spoken by the one the last was said to. A line of a
quotation carries no name, so a small model that restates it gives it to whoever the question names ("The Buddha
asks King Pasenadi to practice the teachings" of the king's own reply). Here each line inside a quotation gets its
speaker when the text makes it plain:

- an introduction before the opening mark, on the line or ending the line before with ":" or ",", gives the last
  person named before its last verb of speech, not one named after a preposition ("went up to the Buddha", "of
  Kosala"); the one spoken to is the other person it names;
- an untagged quotation is spoken by the one the quotation before it was said to (SN 3.25's king and Buddha, MN 61's
  "Yes, sir");
- a quotation that opens by calling someone ("Rāhula, do you see …", "Sir, …") is not theirs: a speaker found for it
  who is the one called gives way to the other party.

Everywhere else the speaker is unknown (""): a pronoun ("He went to Sāti and said to him"), a deity never named, a
reply after a quotation whose listener is unknown. The Buddha's names and epithets are one person, "buddha".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tools.language.words import fold, pattern, word_set

BUDDHA = "buddha"
BUDDHA_NAMED = "the Buddha"  # as a reader is told who speaks
UNNAMED = "~"  # before a speaker known only by what they are ("~deity"): not the Buddha, else unknown
BUDDHA_NAMES = frozenset(fold(w) for w in word_set("buddha_names"))
_SPEECH = pattern("speech_verbs")
_TO_THE_BUDDHA = pattern("addresses_the_buddha")
_AFTER_PREPOSITION = pattern("after_preposition")
_UNNAMED_SPEAKERS = word_set("unnamed_speakers")
_STORY_OPENS = pattern("story_opens")
_ASKS_REPLY = re.compile(pattern("asks_reply").pattern, re.IGNORECASE)
_SIR = re.compile(r"^\W*(?:venerable |good )?sirs?\b")
# a capitalised word, or an epithet of two ("Blessed One")
_CAPITALISED = re.compile(r"(?<![\w’'])((?:Blessed|Realized|Holy) One|[A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+)")
_TWO_NAMES = re.compile(r"([A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+)\s+(?=([A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+))")
_CALLED = re.compile(r"^\W*(?:[A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+\s)*([A-ZĀĪŪṄÑṬḌṆḶṀṂ][\wāīūṅñṭḍṇḷṁṃ]+)\s*[,!]")


def who_speaks(lines: Sequence[str], known: set[str] | frozenset[str]) -> list[str | None]:
    """The speaker of each line (folded name, "buddha" for the Buddha): None where a line is narration, "" where
    it is inside a quotation whose speaker the text does not make plain. `known`: the folded names of the people
    the text names (in any line, not at a sentence's start: `claim_checks.names` of the whole text), which tell a
    name from a capitalised word."""
    out: list[str | None] = []
    depth = 0
    speaker: str | None = None
    last: tuple[str | None, str | None] = (None, None)  # the last quotation's speaker and listener
    before: str | None = None  # the speaker of the quotation before the last
    quoted: list[int] = []  # the lines of the last quotation
    tail = ""  # the previous line's words after its last closing mark: an introduction when it ends with ":" or ","
    for k, line in enumerate(lines):
        if depth and _STORY_OPENS.match(fold(line)):
            depth = 0  # a story begins ("At one time Venerable Mahākaccāna was staying …"): a mark left unclosed
        inside = depth > 0
        start = 0
        marks = list(re.finditer(r"[“”]", line))
        # a tag after a quotation ("“To the imperturbable,” / said Venerable Puṇṇaka,") names who said it
        if depth == 0 and quoted and (found := _postposed(line[: marks[0].start()] if marks else line, known)):
            speaker, last = found, _retold(found, before, quoted, out)
        for m in marks:
            if m.group() == "”":
                depth = max(0, depth - 1)
                start = m.end()
                if depth == 0:
                    after = line[start:].split("“", 1)[0]
                    if found := _postposed(after, known):
                        inside = True
                        speaker, last = found, _retold(found, before, quoted, out)
                continue
            if depth == 0:
                head = line[start:m.start()]
                intro = head if re.search(r"\w", head) else (tail if tail.rstrip().endswith((":", ",")) else None)
                before = last[0]
                speaker, listener = _parties(intro, known, last)
                speaker, listener = _called(line[m.end():], known, speaker, listener)
                last = (speaker, listener)
                quoted = []
                inside = True
            depth += 1
        if inside:
            quoted.append(k)
        out.append((speaker or "") if inside else None)
        # an introduction that goes on from the line before ("Soṇa went to Mahākaccāna, bowed, sat down, / and
        # said,") is read with it
        rest = line[start:] if "”" in line else line
        tail = f"{tail} {rest}" if rest.strip()[:1].islower() and "”" not in line else rest
    return out


def replier(question: str) -> str | None:
    """Whose answer the question asks for, folded as `who_speaks` names speakers: the last person it names before
    "answer", "reply", "respond" … ("How did the Buddha answer Devadatta's five demands?" -> "buddha"; "How did the
    nun Rohini answer her father's charge …?" -> "rohini"); None when it asks for no one's answer ("How did he
    reply?", "What is the answer to suffering?")."""
    m = _ASKS_REPLY.search(question)
    if m is None:
        return None
    named = [n for n in _CAPITALISED.finditer(question[: m.end()]) if n.start() > 0]  # not the opening "How"
    if not named:
        return None
    folded = fold(named[-1].group(1))
    return BUDDHA if _is_buddha(folded) else folded


def _postposed(text: str, known) -> str | None:
    """The speaker a tag after a quotation names ("said Venerable Puṇṇaka,", "replied the Buddha."): its verb of
    speech comes first."""
    folded = fold(text)
    verb = _SPEECH.search(folded)
    if verb is None or re.search(r"\w", folded[: verb.start()]):
        return None
    # the tag's own words, to its first stop: "replied those mendicants. They did as the Buddha asked"
    end = verb.end() + (m.start() if (m := re.search(r"[.,;:!?]", folded[verb.end():])) else len(folded))
    named = [p for at, p, prepositional in _people(text[:end], known) if at > verb.start() and not prepositional]
    return named[0] if named else _unnamed(folded[verb.end():end])


def _retold(found: str, before: str | None, quoted: list[int], out: list[str | None]) -> tuple[str, str | None]:
    """The last quotation's lines (in `out`) given to the speaker its tag names; returns (speaker, listener): the
    one spoken to is whoever spoke before."""
    for i in quoted:
        out[i] = found
    return found, before if before != found else None


def _parties(intro: str | None, known, last: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
    """(speaker, listener) of a quotation from its introduction; with none, the last quotation's listener replies.
    The listener is the first person named after the verb of speech ("addressed the Buddha"), else another the
    introduction names ("went over to Aṅgulimāla and said,")."""
    if intro is None:
        return last[1], last[0]
    verbs = list(_SPEECH.finditer(fold(intro)))
    if not verbs:
        return None, None
    verb = verbs[-1].start()
    named = _people(intro, known)
    free = [p for at, p, prepositional in named if at < verb and not prepositional]
    speaker = free[-1] if free else (_unnamed(fold(intro)[:verb]) or _postposed(intro, known))
    # the speaker's other name beside it ("Mahāpajāpati Gotamī") is the speaker, not the one spoken to
    same = {speaker, *_one_name(intro, known, speaker)}
    after = [p for at, p, _ in named if at > verb and p not in same]
    before = [p for _, p, prepositional in sorted(named, key=lambda n: n[2]) if p not in same]
    listener = after[0] if after else (before[0] if before else None)
    return speaker, listener


def _one_name(text: str, known, person: str | None) -> set[str]:
    """The names written beside `person` as one name ("Mahāpajāpati Gotamī", "Soṇa Kuṭikaṇṇa")."""
    out: set[str] = set()
    for m in _TWO_NAMES.finditer(text):
        pair = {_person(m.group(1), known), _person(m.group(2), known)}
        if person in pair and None not in pair:
            out |= {p for p in pair if p is not None}
    return out


def _unnamed(before_verb: str) -> str | None:
    """One the introduction names by what they are, not who ("a glorious deity … said to him:", "the mendicants
    said"), as UNNAMED + the word: someone other than the Buddha, whoever else they may be."""
    found = None
    for m in re.finditer(r"[\w’']+", before_verb):
        if m.group() in _UNNAMED_SPEAKERS and not _AFTER_PREPOSITION.search(before_verb[: m.start()]):
            found = m.group()
    return f"{UNNAMED}{found}" if found else None


def _called(quote: str, known, speaker: str | None, listener: str | None) -> tuple[str | None, str | None]:
    """The quotation opens by calling someone: they are spoken to, so not the speaker. "Sir" is said to the Buddha
    and to any senior monk: it only tells that the Buddha, if he was taken for the speaker, is not."""
    folded = fold(quote)
    if _TO_THE_BUDDHA.match(folded):
        called: str | None = BUDDHA
    elif _SIR.match(folded):
        return (None if speaker == BUDDHA else speaker), listener
    else:
        m = _CALLED.match(quote)
        called = _person(m.group(1), known) if m else None
    if called is None:
        return speaker, listener
    if speaker == called:
        return (listener if listener != called else None), called
    return speaker, listener or called


def _people(text: str, known) -> list[tuple[int, str, bool]]:
    """(offset, person, named after a preposition) for each person a line names, in order."""
    out = []
    for m in _CAPITALISED.finditer(text):
        if text[m.end(): m.end() + 2] in ("’s", "'s"):
            continue  # "Jeta’s Grove", "the Buddha’s feet": whose, not who
        person = _person(m.group(1), known)
        if person is not None:
            out.append((m.start(), person, bool(_AFTER_PREPOSITION.search(fold(text[: m.start()])))))
    return out


def _person(word: str, known) -> str | None:
    folded = fold(word)
    if _is_buddha(folded):
        return BUDDHA
    return folded if folded in known else None


def _is_buddha(folded: str) -> bool:
    """One of the Buddha's names or epithets ("buddha", "blessed one")."""
    return folded in BUDDHA_NAMES or folded.split()[0] in BUDDHA_NAMES and folded.endswith(" one")
