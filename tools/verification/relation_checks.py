"""Relations a sentence of the model's claims between a person and the words of the lines: a view given as
someone's, who someone is. Each holds only where a line gives the relation itself ("had the following harmful
misconception:", the narration rather than a person's own speech): the small model joins true words of the lines
into a relation the text does not make, and every word-level check passes such a sentence."""

from __future__ import annotations

import re

from tools.language.denials import denied_sentences, polarity_said, reports_saying
from tools.language.negation import polarity
from tools.language.reasons import introduces_view, view_asserted
from tools.language.speakers import BUDDHA, BUDDHA_NAMES, UNNAMED
from tools.language.words import fold, pattern, word_list, words
from tools.references import MENTION
from tools.verification.evidence import claim_tokens, matches_any

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


_SUBJECT_TITLES = frozenset(fold(w) for w in word_list("subject_titles"))
_TELLING = frozenset(fold(w) for w in word_list("telling_verbs"))
_CLAUSE_OPENERS = frozenset(fold(w) for w in word_list("clause_openers"))
DOER_WORDS = 3  # the name a sentence gives as its doer stands among its first words ("The Buddha saw …")
ANTECEDENT_LINES = 3  # lines read back from one that tells it of "he" or "she" for the one it means
QUOTATION_LINES = 12  # lines read back from one said in the first person for the line that says who speaks
MIN_SAID_WORDS = 2  # words of what a sentence says someone said, besides names, to find the lines that say it


def doer_of(claim: str, candidates: set[str]) -> str | None:
    """The name a sentence opens with as its subject, folded ("The Buddha saw …", "King Pasenadi of Kosala …"): one
    of `candidates` (its names and the titles that stand for a person: the Buddha) among its first words, with only
    titles or capitalised words before it (not "According to the Lakkhana Sutta, …")."""
    for word in re.findall(r"\w+", claim)[:DOER_WORDS + 1]:
        folded = fold(word)
        if folded in candidates:
            return folded
        if not word[:1].isupper() and folded not in _SUBJECT_TITLES:
            return None
    return None


def doer_check(claim: str, doer: str, others: set[str], lines: list[str], named: list[set[str]],
               spellings: frozenset[str] = frozenset()) -> str | None:
    """A sentence that opens with the one who did what it says ("The Buddha saw the monks playing in the river")
    where the line that tells the deed tells it of someone else: the line names another and not that person, or
    names no one ("he saw the monks from the group of seventeen playing in the river") and the nearest line before
    it that names someone names another ("while King Pasenadi of Kosala was up in his stilt house with queen
    Mallikā"). Asked who did it, the name is the whole answer, and every other word of the sentence is in the lines.
    The line that tells the deed holds the sentence's verb ("saw") and most of the rest; a verb of saying ("The
    Buddha said that …") gives what the lines say, not a deed, and is not read here. `doer`: the name,
    folded; `others`: the sentence's other names (whom it was done to); `lines`: the lines that hold the sentence, in
    order, wider before (for the one "he" means); `named`: each line's names, folded, without those it only calls
    to ("Mallikā, these …"); `spellings`: other ways the texts write the name ("Maha Kassapa" as Mahākassapa). No
    finding where no line holds the verb and most of the rest, or one that does is told of the person or of no one
    named."""
    after, said = _after_name(claim, doer)
    if fold(said) in _TELLING:  # a verb of saying gives what the lines say
        return None
    told = _lines_telling(after, said, others, lines)
    if told is None:
        return None
    verb, best = told
    for i in best:
        teller = _speaker(lines, named, i) if _says_i_did(lines[i], verb) else _teller(others, named, i)
        if teller is None or any(_same_name(d, n) for n in teller for d in {doer, *spellings}):
            return None
    return "the cited lines tell this of someone else"


def clause_doers(claim: str, candidates: set[str]) -> list[tuple[str, str]]:
    """The names a sentence gives as the subject of a clause inside it ("The Buddha replied that if Vacchagotta had
    answered …"): one of `candidates` right after a word that opens a clause (`clause_openers`), with only titles or
    capitalised words between; each folded, with the sentence from that name on."""
    tokens = list(re.finditer(r"\w+", claim))
    found: list[tuple[str, str]] = []
    for k, opener in enumerate(tokens):
        if fold(opener.group()) not in _CLAUSE_OPENERS:
            continue
        for token in tokens[k + 1: k + 1 + DOER_WORDS]:
            folded = fold(token.group())
            if folded in candidates:
                found.append((folded, claim[token.start():]))
                break
            if not token.group()[:1].isupper() and folded not in _SUBJECT_TITLES:
                break
    return found


def first_person_check(clause: str, doer: str, others: set[str], lines: list[str], speakers: list[str | None],
                       spellings: frozenset[str] = frozenset()) -> str | None:
    """A clause that gives a named person a deed the lines tell in someone else's first person: "… if Vacchagotta
    had answered 'the self survives', he would have been siding with the eternalists", where the line is the
    Buddha's own "if I had answered that 'the self survives' I would have been siding …" (SN 44.10), which names
    Vacchagotta as the one who asked. A small model turning a speaker's "I" into a name takes the nearest name.
    `clause`: the sentence from the name on (`clause_doers`); `doer`: the name, folded; `others`: the sentence's
    other names; `lines`: the lines that hold the sentence, in order; `speakers`: who speaks each
    (tools/language/speakers.py). A finding only where every line that best holds the clause tells the deed in the
    first person and its speaker is known and another; a verb of saying is a deed here ("if I had answered")."""
    after, said = _after_name(clause, doer)
    told = _lines_telling(after, said, others, lines)
    if told is None:
        return None
    verb, best = told
    names_ = {BUDDHA if doer in BUDDHA_NAMES else doer, *spellings}
    for i in best:
        spoken_by = speakers[i]
        if not _says_i_did(lines[i], verb) or not spoken_by or spoken_by.startswith(UNNAMED) \
                or any(_same_name(n, spoken_by) for n in names_):
            return None
    return "the cited lines tell this of someone else"


def _lines_telling(after: str, said: str, others: set[str], lines: list[str]) -> tuple[str, list[int]] | None:
    """The verb of what a sentence says someone did, and the lines that best hold it: those with the verb and the
    largest share (at least `VIEW_SHARE`) of the words after the name, others' names aside. `after`: the sentence
    after the name; `said`: its first word (`_after_name`). None when no line holds enough."""
    rest = [w for w in dict.fromkeys(words(after)) if w not in others]
    if len(rest) < 2:
        return None
    verb = next(iter(words(said)), rest[0])  # "saw" -> "see"; a word `words` drops ("was") leaves the next
    # a line with the non-empty line before it: a deed told after its condition ("If he gives me a straight answer
    # …" / "I will lead the spiritual life under him")
    before = [next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "") for i in range(len(lines))]
    shares = {i: sum(matches_any(w, held) for w in rest) / len(rest)
              for i, line in enumerate(lines)
              if matches_any(verb, set(words(line))) and (held := set(words(line)) | set(words(before[i])))}
    top = max(shares.values(), default=0.0)
    if top < VIEW_SHARE:
        return None
    return verb, [i for i, share in shares.items() if share == top]


def _after_name(claim: str, name: str) -> tuple[str, str]:
    """What follows the name a sentence opens with ("King Pasenadi of Kosala saw …" -> " of Kosala saw …"), and its
    first word that is not part of the name ("saw"; not "of Kosala")."""
    at = next((m for m in re.finditer(r"\w+", claim) if fold(m.group()).startswith(name)), None)
    after = claim[at.end():] if at else claim
    return after, next((w for w in re.findall(r"[\w’']+", after) if not w[:1].isupper() and w != "of"), "")


def speaks_in(person: str, speakers: list[str | None]) -> bool:
    """The person (the Buddha under any of his titles) speaks somewhere among `speakers`: only then can lines be
    found to be another's words rather than theirs."""
    person = BUDDHA if person in BUDDHA_NAMES else person
    return any(s and _same_name(person, s) for s in speakers)


def sayer_check(claim: str, sayer: str, others: set[str], lines: list[str], speakers: list[str | None],
                spellings: frozenset[str] = frozenset()) -> str | None:
    """A sentence that opens with who says what it reports ("The Buddha tells Bāhiya to teach the Dhamma", "The
    Buddha asks King Pasenadi to practice the teachings") where the lines that hold the rest are another's words in
    the text: Bāhiya asks the Buddha to teach him, the king says he can only practice the teachings. Asked what one
    says to another, a small model gives the words to whoever the question names, and every other word is in the
    lines. `sayer`: the name, folded; `others`: the sentence's other names; `lines`: the lines that hold the
    sentence, in order; `speakers`: who speaks each (tools/language/speakers.py; None or "" where no one or no one
    the text makes plain); `spellings`: other ways the texts write the name. A finding only where every line that
    best holds the rest has a known speaker, none of them the person, and none reports the person's words ("the
    Buddha has said that …")."""
    after, verb = _after_name(claim, sayer)
    if fold(verb) not in _TELLING:
        return None
    rest = [w for w in dict.fromkeys(words(after)) if w not in others and w not in words(verb) and w != "that"]
    if len(rest) < MIN_SAID_WORDS:
        return None
    # a line with the one before it when the same person says both: what is said runs over a speaker's lines
    held = [set(words(line)) | (set(words(lines[i - 1])) if i and speakers[i] and speakers[i - 1] == speakers[i]
                                else set()) for i, line in enumerate(lines)]
    shares = {i: sum(matches_any(w, h) for w in rest) / len(rest) for i, h in enumerate(held)}
    top = max(shares.values(), default=0.0)
    if top < VIEW_SHARE:
        return None
    names_ = {sayer, *spellings}
    buddha = bool(names_ & ({BUDDHA} | BUDDHA_NAMES))
    for i in (i for i, share in shares.items() if share == top):
        spoken_by = speakers[i]
        if not spoken_by or any(_same_name(n, spoken_by) for n in names_) or _reports(names_, lines[i]):
            return None
        if spoken_by.startswith(UNNAMED) and not buddha:  # "the king said": which king the text does not say here
            return None
    return "the cited lines are another's words"


def _reports(names_: set[str], line: str) -> bool:
    """The line reports what the person said ("the Buddha has said in many ways that …")."""
    folded = fold(line)
    return any(re.search(rf"\b{re.escape(n)}\w*\s+(?:\w+\s+){{0,2}}?{_SPEECH.pattern}", folded) for n in names_)


def _says_i_did(line: str, verb: str) -> bool:
    """The line tells the deed in the first person ("I will lead the spiritual life under him"): its doer is who
    speaks, whoever it names."""
    tokens = re.findall(r"[\w’']+", fold(line))
    return any(t in ("i", "we") and any(matches_any(verb, set(words(n))) for n in tokens[k + 1: k + 3])
               for k, t in enumerate(tokens))


def _speaker(lines: list[str], named: list[set[str]], at: int) -> set[str] | None:
    """Who speaks line `at`: the first name of the line that opens its quotation (before the opening mark), or of
    the line before it when the quotation opens a line ("Then as Venerable Māluṅkyaputta was in private retreat
    this thought came to his mind: / “There are …"); None when no opening is found."""
    for j in range(at, -1, -1):
        if "“" not in lines[j]:
            continue
        head = lines[j].split("“", 1)[0]
        k = j if words(head) else j - 1
        if k < 0 or not named[k]:
            return None
        intro = fold(lines[k] if k < j else head)
        placed = [(intro.find(n[:4]), n) for n in named[k] if intro.find(n[:4]) >= 0]
        return {min(placed)[1]} if placed else None
    return None


def _teller(others: set[str], named: list[set[str]], at: int) -> set[str] | None:
    """The names line `at` tells of (the sentence's other names aside), or, when it names no one, those of the
    nearest line before it that does, up to `ANTECEDENT_LINES` back; None when none does."""
    for j in range(at, max(-1, at - ANTECEDENT_LINES - 1), -1):
        found = {n for n in named[j] if n not in others}
        if found:
            return found
    return None


def _same_name(a: str, b: str) -> bool:
    """Folded names that are one ("sariputta", "sariputtas"): Pali names inflect a little in English text."""
    stem = a[: max(4, len(a) - 2)]
    return b.startswith(stem) or a.startswith(b[: max(4, len(b) - 2)])


_DEFINES = pattern("defines")
_CONCLUDES = pattern("concludes_definition")
CONCLUSION_REACH = 6  # lines after a cited line read for the one that says what its conditions define


def definition_check(claim: str, following: list[str], text: list[str]) -> str | None:
    """A sentence that defines something ("The Buddha defines someone who lives alone as one who approves, welcomes
    and keeps clinging to sights …") from lines that set out the conditions of the other thing the text defines
    beside it: the first line at or after the cited ones that concludes a definition ("A mendicant who is fettered
    by relishing is said to live with a partner.") lacks a word of the defined term ("alone") that another
    concluding line of the text holds with all of them ("… is said to live alone"). A text that sets two things side
    by side gives each the same words but one; the small model takes the wrong side, and every word is in the
    lines. `following`: the cited lines and `CONCLUSION_REACH` after them, in order; `text`: the whole text's lines.
    No finding unless the sentence defines and both conclusions are found."""
    m = _DEFINES.search(fold(claim))
    if m is None:
        return None
    concluding = [set(words(line)) for line in text if _CONCLUDES.search(fold(line))]
    # the term as the text's definitions word it ("lives alone" of "someone who lives alone")
    term = {w for w in words(m.group("term") or m.group("subject") or "") if any(matches_any(w, c) for c in concluding)}
    ends = next((line for line in following if _CONCLUDES.search(fold(line))), None)
    if not term or ends is None:
        return None
    said = set(words(ends))
    if all(matches_any(w, said) for w in term):
        return None
    if not any(all(matches_any(w, c) for w in term) for c in concluding):
        return None
    return "the cited lines define the other of two things the text sets side by side"


_IDENTITY = pattern("identity_claim")
_SENTENCE_END = re.compile(r"[.!?;:]")
_HE_OR_SHE = re.compile(r"^\W*(?:he|she)\b")


def identity_check(claim: str, cited: list[str], text: list[str], not_names: set[str] | frozenset[str]) -> str | None:
    """A sentence that says who or what a named person was ("Aṅgulimāla was a noble woman who lived in the lay
    life") where the description's head word ("woman") is in the cited lines but no sentence of the whole text
    (`text`) gives it to that name: as a title or a name given ("the nun Subhā", "a bandit named Aṅgulimāla"), in
    apposition or as what the person was or became ("Aṅgulimāla, a hardened killer", "Subhā was a nun"). The small
    model took the description of someone else in the lines ("Aṅgulimāla. He went to that woman"; "Aṅgulimāla, go
    to that woman" calls him, it does not describe him), and every word is in the lines, so the word-level checks
    pass it. No finding when the head word is not in the cited lines (the other checks judge that) or the name is a
    title (`not_names`: "the Buddha")."""
    m = _IDENTITY.search(claim.strip())
    if m is None:
        return None
    name_words = [w for w in m.group("name").split() if fold(w) not in not_names]
    desc = fold(m.group("desc")).split()
    if not name_words or not desc or not words(desc[-1]) or fold(name_words[-1]) in not_names:
        return None
    if not matches_any(words(desc[-1])[0], {w for line in cited for w in words(line)}):
        return None
    name, head = fold(re.sub(r"[’']s$", "", name_words[-1])), desc[-1]
    name_re = rf"\b{re.escape(name[: max(4, len(name) - 2)])}\w*"
    head_re = rf"\b{re.escape(head[: max(3, len(head) - 2)])}\w*"
    given = re.compile(rf"{head_re}\s+(?:(?:named|called)\s+)?{name_re}|"
                       rf"{name_re}(?:,\s+(?:a|an|the)|\s+(?:was|is|became|the))\s+(?:[\w-]+,?\s+){{0,4}}{head_re}")
    named = re.compile(name_re)
    before = ""
    for line in text:
        for sentence in filter(str.strip, _SENTENCE_END.split(fold(line))):
            if named.search(before):  # "… a bandit named Aṅgulimāla. He was violent, a hardened killer."
                sentence = _HE_OR_SHE.sub(name, sentence, count=1)
            if given.search(sentence):
                return None
            before = sentence
    return "no line of the text calls this person what the sentence calls them"


JUDGED_SHARE = 0.6  # of the sentence's content words the statement holds: the sentence says that statement


def judged_statement_check(claim: str, cited: list[str], asked: frozenset[str] = frozenset()) -> str | None:
    """A sentence that asserts what the lines go on to deny, in a line of its own after it. SN 56.32 sets a
    statement out and then judges it: "suppose someone were to say: 'Without truly comprehending the noble truths …,
    I will completely make an end of suffering.' That is not possible." AN 3.100 asks and is answered: "Would the
    Ganges river become salty and undrinkable?" "No, sir." Every word of "without comprehending the noble truths
    one will completely make an end of suffering", or of "the Ganges river would become salty", is in one line, and
    the denial is in the next: the negation check reads the lines its sentence is matched to, and those may stop
    before the denial. The sentence says the statement (or the question) when that holds `JUDGED_SHARE` of its
    content words; it asserts it when its polarity ("cannot", "impossible" counted) is the statement's own.

    The reader's words (`asked`, the question's tokens) that the statement lacks are left out of that share: "The
    Buddha appointed Ānanda to be the Sangha's refuge after his death, according to Ānanda's conversation with
    Vassakāra …" takes a question's premise for the text's, and MN 108 asks "is there even a single mendicant who
    was appointed by Mister Gotama, saying: 'This one will be your refuge …'?" and answers "No, there is not." """
    said = MENTION.sub(" ", claim)
    if reports_saying(said):
        return None
    mine = set(claim_tokens(said))
    for statement, denied in denied_sentences(" ".join(cited)):
        if not denied:
            continue
        stated = set(claim_tokens(statement))
        core = mine - (asked - stated)
        if len(core) < 3 or len(core & stated) < JUDGED_SHARE * len(core):
            continue
        if polarity_said(said) == polarity(statement):
            return "negated: the lines after it deny it"
    return None
