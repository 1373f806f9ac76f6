"""Relations a sentence of the model's claims between a person and the words of the lines: a view given as
someone's, who someone is. Each holds only where a line gives the relation itself ("had the following harmful
misconception:", the narration rather than a person's own speech): the small model joins true words of the lines
into a relation the text does not make, and every word-level check passes such a sentence."""

from __future__ import annotations

import re

from tools.language.reasons import introduces_view, view_asserted
from tools.language.words import fold, pattern, words
from tools.verification.evidence import matches_any

VIEW_SHARE = 0.6  # of the view's words the line that states it best must hold (else the view is not located)


def view_check(claim: str, holder: str, cited: list[str]) -> str | None:
    """A sentence that gives a named person a view ("Sāti held the wrong view that consciousness is dependently
    originated") says the text gives it as theirs: a line that states the view must be introduced as that person's
    view, by the line itself or the one before it ("Sāti … had the following harmful misconception: “…”"). Asked
    what view someone held, a small model takes the words of the reply that corrects it ("Don't say that, Sāti! …
    the Buddha has said that consciousness is dependently originated"), and every word is in the lines. `holder`:
    the person's name, folded; `cited`: the cited lines in order, a line wider each side. No finding where no line
    states the view (the other checks judge its words) or no line is known."""
    view = view_asserted(claim)
    best = _lines_stating(view or "", holder, cited)
    for i in best:
        if _gives_view(holder, cited[i]) or (i > 0 and _gives_view(holder, cited[i - 1]) and _opens_onto(cited[i - 1])):
            return None
    return "the cited lines do not give this view as theirs" if best else None


def _lines_stating(said: str, holder: str, cited: list[str]) -> list[int]:
    """The cited lines that hold most of what a sentence says of a person (their name aside), when one holds at
    least `VIEW_SHARE` of it; [] when none does (the other checks judge its words) or nothing is said."""
    wanted = [w for w in dict.fromkeys(words(said)) if w not in words(holder)]
    if not wanted or not cited:
        return []
    shares = [sum(matches_any(w, set(words(line))) for w in wanted) / len(wanted) for line in cited]
    top = max(shares)
    return [i for i, share in enumerate(shares) if share == top] if top >= VIEW_SHARE else []


def _gives_view(holder: str, line: str) -> bool:
    return holder in fold(line) and introduces_view(line)


def _opens_onto(line: str) -> bool:
    """The line ends on a colon: it introduces what follows ("… had the following harmful misconception:"); one
    that only refers back ("wishing to dissuade Sāti from his view, …") introduces the reply."""
    return line.rstrip(" “‘\"").endswith(":")


_OPENS_QUOTE = re.compile(r"^\W*[“‘\"]")


def speaker_check(claim: str, holder: str, cited: list[str]) -> str | None:
    """A sentence that says who or what a named person is ("The Kalamas were some ascetics and brahmins who came to
    Kesamutta") from words the text gives only as that person's own speech ("Seated to one side the Kālāmas said to
    the Buddha: / “There are, sir, some ascetics and brahmins who come to Kesamutta.”"): the speaker's words about
    someone else made into a fact about the speaker. `holder`: the person's name, folded; `cited`: the cited lines in
    order, a line wider each side. No finding unless the sentence is "<name> is/are/was/were …" and every line that
    best holds the rest opens a quotation introduced, on the line before, as that person's."""
    m = re.search(rf"\b{re.escape(holder)}\w*\s+(?:is|are|was|were)\s+(.+)$", fold(claim))
    if m is None or len(fold(claim)[: m.start()].split()) > 3:
        return None
    best = _lines_stating(m.group(1), holder, cited)
    if best and all(i > 0 and _OPENS_QUOTE.search(cited[i]) and _speaks(holder, cited[i - 1]) for i in best):
        return "the cited lines give these as their own words, not as what they are"
    return None


_SPEECH = re.compile(r"\b(?:said|says|asked|asks|replied|replies|answered|answers|spoke|declared|addressed|told)\b")


def _speaks(holder: str, line: str) -> bool:
    """The line introduces what the person says next: it names them before its verb of speech and opens onto the
    quotation ("Seated to one side the Kālāmas said to the Buddha:"); "the mendicants said to Tissa:" is not
    Tissa's."""
    folded = fold(line)
    verb = _SPEECH.search(folded)
    at = folded.find(holder)
    return verb is not None and 0 <= at < verb.start() and _opens_onto(line)


# A name, then a verb of speech (in a folded sentence of the model's: "… the buddha said "sir, …")
_SAID = re.compile(r"(\w+)\s+(?:said|says|asked|asks|replied|replies|answered|answers|declared|declares)\b")
_QUOTE_MARK = re.compile(r"[“\"]")
SAID_TO_QUOTE = 40  # characters at most between the verb of speech and the quotation it introduces


def quote_speaker_check(claim: str, names_: set[str], lines: list[str]) -> str | None:
    """A sentence that gives a quotation to a named person ("… the Buddha said “Sir, suppose a person who was weak
    with hunger …”") where the line that introduces those words names that person only as the one spoken to
    ("Venerable Ānanda said to the Buddha,"): speaker and listener swapped, which a small model does when it
    restates a dialogue, and every word of the sentence is in the lines. `names_`: the sentence's names, folded;
    `lines`: the text's lines in order (the quotation's own words say where it is, whichever lines are cited). No
    finding unless a line holding the quotation's first words is introduced that way, and none is introduced as
    that person's."""
    folded = fold(claim)
    q = folded.find('"')
    said = list(_SAID.finditer(folded[:q])) if q > 0 else []
    if not said or said[-1].group(1) not in names_ or q - said[-1].end() > SAID_TO_QUOTE:
        return None
    holder, head = said[-1].group(1), " ".join(words(folded[q + 1:])[:4])
    listener = speaker = False
    for i, line in enumerate(lines):
        if not head or head not in " ".join(words(line)):
            continue
        pre = _QUOTE_MARK.split(line, maxsplit=1)[0] if _QUOTE_MARK.search(line) else ""
        intro = pre if words(pre) and head not in " ".join(words(pre)) else (lines[i - 1] if i > 0 else "")
        listener = listener or _listener_only(holder, intro)
        speaker = speaker or (holder in fold(intro) and not _listener_only(holder, intro))
    return "the cited lines give these words to someone else" if listener and not speaker else None


def _listener_only(holder: str, intro: str) -> bool:
    """The line introduces speech (its last verb of speech, then a colon or comma at its end) and names the person
    only after that verb: the one spoken to."""
    folded = fold(intro).rstrip(" “‘\"")
    verbs = list(_SPEECH.finditer(folded))
    if not verbs or not folded.endswith((":", ",")):
        return False
    at = folded.find(holder)
    return at > verbs[-1].start()


_FIRST_PERSON = pattern("first_person")
_CLAUSES = re.compile(r"[,;:—]|\b(?:because|since|and|but|so|while|when|after)\b")
MIN_CLAUSE_WORDS = 3  # a clause with fewer content words holds too little to locate


def addressed_check(claim: str, holder: str, others: set[str], lines: list[str]) -> str | None:
    """A sentence that gives a named person what another says of themselves to that person: "Aṅgulimāla stopped
    chasing the Buddha because he had laid aside violence towards all creatures", where the lines are the Buddha's
    reply, "“Aṅgulimāla, I have forever stopped— / I’ve laid aside violence towards all creatures." Each clause of
    the sentence that names no one else (`others`, folded) is located in the lines; a finding when the lines that
    hold it best are in the first person, inside a quotation that opens by calling the person by name. `holder`:
    the person's name, folded; `lines`: the cited lines in order, a line wider each side."""
    for clause in _CLAUSES.split(fold(claim)):
        said = [w for w in words(clause) if w not in words(holder)]
        # another named in the clause is its subject, or its object ("buddha" is a stopword to `words`)
        if len(said) < MIN_CLAUSE_WORDS or any(w in others for w in re.findall(r"\w+", clause)):
            continue
        best = _lines_stating(" ".join(said), holder, lines)
        if best and all(_FIRST_PERSON.search(fold(lines[i])) and _called_by_name(holder, lines, i) for i in best):
            return "the cited lines are another's words of themselves, said to them"
    return None


def _called_by_name(holder: str, lines: list[str], at: int) -> bool:
    """The quotation that line `at` is in (opened on it or up to three lines before) opens by calling the person by
    name ("“Aṅgulimāla, I have …")."""
    for j in range(at, max(-1, at - 4), -1):
        if "“" in lines[j]:
            opened = fold(lines[j].rsplit("“", 1)[1]).lstrip(" '\"")
            return opened.startswith(holder) and opened[len(holder):].lstrip()[:1] in (",", "—", "-", "!")
    return False
