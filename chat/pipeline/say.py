"""Say from the selected lines: the model restates the lines chosen to answer, one numbered line per sentence.

A 1.5B model chooses and restates far better than it writes free prose. Once `select.select_lines` has chosen the
lines that answer, the model is shown only those, numbered 1..k, and held by a grammar to write one to four
sentences, each opening with the number of the line it restates:

    [2] The Buddha says the fire "is reckoned to have become quenched due to lack of fuel".

Writing the number first commits the sentence to one line before a word of it is written; the citation is then
that line's reference, taken from the selection, never typed by the model. A sentence may carry the line's key
words as a short quotation inside it. The reply is turned into the usual draft ("sentence [ref]." with the line's
reference), so the same checks judge it as any other answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.pipeline.compose import quote_text, script_text
from chat.pipeline.draft import with_refs
from chat.pipeline.grammar import OTHER_SCRIPTS
from indexing.vocabulary import ABSTAIN_SENTENCE
from prompts import load_prompt
from tools.language.numbers import numbers
from tools.language.sentences import split_sentences
from tools.language.words import pattern
from tools.search.shapes import shape_credit, shape_of
from tools.search.windows import EvidenceWindow
from tools.verification.claim_checks import plain_words
from tools.verification.evidence import claim_tokens
from tools.verification.verifier import VERBATIM_WORDS

_SPEAKER_OR_LISTENER = pattern("speaker_or_listener")
MAX_SENTENCES = 4
MAX_SAID_AGAIN = 2  # asked again, the model restated each line it had chosen in turn, four mechanical sentences
SAY_MAX_TOKENS = 300  # four sentences of about sixty tokens, each with its number
COPY_MOST = 2 / 3  # of a line's words: a copy this long restates the line, not the part of it that answers
OPENER_WORDS = 4  # "In the same way," "Then," "Mendicants,": a sentence's opening that its report may leave out
LINE_CHARS = 700  # a selected line as the model reads it (the reader sees the same quotation)
# What the model is told when it is asked again (prompts/say_again.md)
SAY_FAULTS = {"copied": "copied the lines word for word: that quotes the text, it does not answer the question",
              "unsupported": "said what the lines do not say",
              "declined": "said that no line answers the question; but these lines were found for it, and they speak "
                          "of what it asks"}

# One sentence per item: opens with a capital or a quotation; no line break, bracket, parenthesis, asterisk or letter
# of another script
# (the drifts the answer grammar also shuts out, chat/pipeline/grammar.py), and none of = < > { } _ (the coder
# model drifted into code after a stop: '… a catch!innerHTML = "…'); a full stop inside only before a digit
# ("AN 3.36"), never before a letter ("prudence.animals", "..SelectedItems:" followed one); a colon only before a
# space (a quotation introduced: 'names four deeds: "killing …"'). A quotation is closed before the sentence ends
# and may hold any stop of its own; the sentence ends with a full stop or with its quotation.
_ITEM = r'''item ::= "[" num "] " sentence
sentence ::= head inner{4,299} tail
head ::= [A-Z\u00c0-\u024f\u1e00-\u1eff] | quoted
inner ::= plain | "." [0-9] | ": " | quoted
plain ::= [^\n\[\]():*.!?"“”=<>{}_OTHER]
quoted ::= ["“] qchar{1,300} ["”]
qchar ::= [^\n\[\]"“”=<>{}_OTHER]
tail ::= "." | quoted
'''.replace("OTHER", OTHER_SCRIPTS)
_ITEM_LINE = re.compile(r"^\s*\[(\d{1,2})\]\s*(.+?)\s*$")


def say_grammar(n_lines: int) -> str:
    """GBNF: the abstain sentence, or one to MAX_SENTENCES items, each "[k] sentence" with k in 1..n_lines."""
    abstain = '"' + ABSTAIN_SENTENCE.replace('"', '\\"') + '"'
    numbers = " | ".join(f'"{i}"' for i in range(n_lines, 0, -1))  # longer numbers first
    return (f'root ::= {abstain} | item ("\\n" item){{0,{MAX_SENTENCES - 1}}}\n' + _ITEM + f"num ::= {numbers}\n")


def reported_grammar(windows: list[EvidenceWindow]) -> str:
    """GBNF for a second try (a sentence copied its line, or none stood): each item opens "[k] <text> says that", where
    <text> is line k's text, and goes on in the model's words. Reported speech is what a copy lacks: the speaker's
    "this mind, mendicants, is" becomes the reader's "the mind is", and the sentence is an answer, not a quotation.
    The opener is always true: line k is that text's."""
    heads = " | ".join(f'"[{k}] {_gbnf(reported_opener(w))}" reported' for k, w in enumerate(windows, 1))
    return (f'root ::= item ("\\n" item){{0,{MAX_SAID_AGAIN - 1}}}\n'
            f"item ::= {heads}\n"
            "reported ::= rhead inner{4,299} tail\n"
            r"rhead ::= [a-z\u00e0-\u024f\u1e01-\u1eff] | quoted" "\n" + _ITEM.split("\n", 3)[3])


def _gbnf(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def restated_for_copies(first: list[Said], again: list[Said], windows: list[EvidenceWindow]) -> list[Said]:
    """The first try's sentences, each that copied its line replaced by what the second try (`again`, copies
    already left out) restates of that line. A copy whose line the second try says nothing of goes when the answer
    has words of its own: its line is quoted below the answer, and shown inline as well it came before the
    answer's own sentence ("“Understanding this distinction …” Dhp 21 says that …"). With none of its own, the
    copies stay, to be shown as the quotations they are."""
    out: list[Said] = []
    for said in first:
        if not copied(said, windows):
            out.append(said)
            continue
        out.extend(s for s in again if s.line == said.line and s not in out)
    return (out or first)[:MAX_SENTENCES]  # nothing else said: the first try was copies alone


def copied(said: Said, windows: list[EvidenceWindow]) -> bool:
    """Whether the sentence, past its reported-speech opener ("Dhp 19 says that"), is the words of one of the lines,
    word for word: "Dhp 19 says that much though they may recite scripture, …" quotes the verse as surely as the
    verse alone does, and says nothing the quotation below it does not. Any line's words: the model may copy
    another line than the one it numbered."""
    text = said.text.removeprefix(reported_opener(windows[said.line - 1])).strip()
    words = plain_words(_SCRIPT_TAG.sub("", text))  # "King Pasenadi: “Sir, …”": the script's line, copied
    return len(words.split()) >= VERBATIM_WORDS and any(f" {words} " in f" {plain_words(line_text(w))} "
                                                        for w in windows)


_SCRIPT_TAG = re.compile(r"^(?:[A-Z][\w’'-]*\s){0,3}[A-Z][\w’'-]*:\s*")
_QUOTED_SPAN = re.compile(r"[“\"][^“”\"]*[”\"]")


def answering_part(said: Said, windows: list[EvidenceWindow], question: str) -> bool:
    """Whether a sentence said in reported speech that copies its line ("Dhp 21 says that heedfulness is the state
    free of death; heedlessness is the state of death.") copies the part of the line that answers: whole sentences
    of it, less than most of it, holding a word the question asks about (a name aside) or the kind of line it asks
    for (`shapes.shape_credit`), and no word that is the speaker's or the listener's own ("so I say", "your
    reflection"). Such a sentence is an answer that quotes, which a reader can use: it points to the words that
    answer, where a copy of the whole line says nothing the quotation below it does not, and a fragment ("burning
    with the fires of greed, I say") or the line's opening of another matter ("MN 72 says that the wanderer
    Vacchagotta went up to the Buddha") is none."""
    line = windows[said.line - 1]
    opener = reported_opener(line)
    if not said.text.startswith(opener):
        return False
    text = said.text.removeprefix(opener).strip()
    copy = plain_words(text)
    sentences = [s.text for s in split_sentences(line_text(line))]
    runs = [" ".join(sentences[i:j]) for i in range(len(sentences)) for j in range(i + 1, len(sentences) + 1)]
    run = next((r for r in runs if any(copy == plain_words(part) for part in _without_opener(r))), None)
    if run is None or len(copy.split()) >= COPY_MOST * len(plain_words(" ".join(sentences)).split()):
        return False
    if _SPEAKER_OR_LISTENER.search(plain_words(_QUOTED_SPAN.sub(" ", text))):
        return False
    asked = set(claim_tokens(question)) - _named(question)
    # or the kind of line the question asks for, as the selection reads it: what a simile means ("In the same way,
    # when an unlearned ordinary person experiences painful physical feelings they sorrow and wail …", for "what
    # is the second arrow?"), a list's items, a rule, a reason
    return bool(asked & set(claim_tokens(text))) or shape_credit(shape_of(question), run) > 0


def _named(question: str) -> set[str]:
    """The words of the names and titles the question writes capitalised after its first word ("the Buddha's
    reply to Vacchagotta"): whom it asks about, not what it asks."""
    return {t for w in question.split()[1:] if w[:1].isupper() for t in claim_tokens(w)}


def _without_opener(text: str) -> list[str]:
    """The text, and the text past a short opening set off by a comma ("In the same way, deeds of body …")."""
    out = [text]
    head, comma, rest = text.partition(",")
    if comma and rest.strip() and len(head.split()) <= OPENER_WORDS:
        out.append(rest.strip())
    return out


def quoting_its_part(said: Said, windows: list[EvidenceWindow]) -> Said:
    """An answering part (`answering_part`) with the line's words in quotation marks, so that the reader can tell
    the text's words from the answer's: 'Dhp 21 says that “heedfulness is the state free of death; …”'."""
    opener = reported_opener(windows[said.line - 1])
    return Said(said.line, f"{opener}“{said.text.removeprefix(opener).strip()}”")


def reported_opener(window: EvidenceWindow) -> str:
    """How a sentence said again in reported speech opens (`reported_grammar`)."""
    return f"{window.source} says that "


def line_text(window: EvidenceWindow) -> str:
    """A selected line as the model reads it."""
    return quote_text(window, LINE_CHARS)


def listing(windows: list[EvidenceWindow], voices: Sequence[Sequence[str | None]] = ()) -> str:
    """The selected lines, numbered 1..k, as the model reads them: their words alone. Shown with its reference
    ("MN 24:14.3–14.5") or title, the model copied them into its sentences ("MN 24: 14.3–14.5: …"), which the checks
    then read as numbers the line does not hold. `voices`: who says each window's lines; a dialogue's quotations
    that the text leaves untagged are shown as a script ("King Pasenadi: “Sir, what could I do …”"): shown
    without, the model gives the words to whoever the question names."""
    out = []
    for i, window in enumerate(windows, 1):
        script = script_text(window, voices[i - 1], LINE_CHARS) if i <= len(voices) else None
        out.append(f"[{i}] {script}" if script else f"[{i}] “{line_text(window)}”")
    return "\n".join(out)


# The texts' way of setting out a list: "Mendicants, there are these four perils. What four? The perils of fire, …"
_WHAT_N = re.compile(r"\bWhat ([a-z]+(?:-[a-z]+)?)\?", re.IGNORECASE)


def list_hint(question: str, windows: list[EvidenceWindow]) -> str:
    """For a question that counts what it asks for ("What are the eight worldly conditions …?"), where a selected
    line sets the list out the texts' way ("… What eight? Gain and loss, …"): which line holds the items. The model
    otherwise restates the line that only names the list ("the eight worldly conditions revolve around the world")."""
    counted = numbers(question)
    for k, window in enumerate(windows, 1):
        for m in _WHAT_N.finditer(line_text(window)):
            if numbers(m.group(1)) & counted:
                return f'Line {k} gives the {m.group(1).lower()} after "{m.group(0)}": name every one of them.'
    return ""


def say_messages(question: str, windows: list[EvidenceWindow], hints: str = "",
                 voices: Sequence[Sequence[str | None]] = ()) -> list[ChatMessage]:
    """The prompt: the rules (the same for every question, so llama.cpp reuses their cache), then the lines (with
    who says them, `listing`) and the question."""
    system = load_prompt("say_system").strip()
    user = load_prompt("say_user", lines=listing(windows, voices), question=question,
                       hints=f"\n{hints.strip()}\n" if hints.strip() else "").strip()
    return [ChatMessage(role=MessageRole.SYSTEM, content=system), ChatMessage(role=MessageRole.USER, content=user)]


@dataclass(frozen=True)
class Said:
    """One sentence the model wrote and the selected line (1..k) it restates."""

    line: int
    text: str


def renumbered(said: Said, windows: list[EvidenceWindow], question: str) -> Said:
    """A sentence whose own words (those the question does not give) are found only in another selected line, and
    none of them only in its own: the model wrote the number of the line beside the one it restates ("Dhp 65 says
    that a fool … resembles a spoon the taste of the soup", the spoon being Dhp 64's). It takes that line's number
    and, said in reported speech, its opener; the checks then read it against that line. A sentence that leans on
    its own line for any word it alone holds keeps its number."""
    opener = reported_opener(windows[said.line - 1])
    body = said.text.removeprefix(opener)
    asked = set(claim_tokens(question))
    own = [w for w in dict.fromkeys(claim_tokens(body)) if w not in asked]
    held = [set(claim_tokens(line_text(w))) for w in windows]

    def alone(k: int) -> int:
        return sum(1 for w in own if w in held[k] and not any(w in h for j, h in enumerate(held) if j != k))

    best = max(range(len(windows)), key=alone)
    if best == said.line - 1 or alone(said.line - 1) or not alone(best):
        return said
    text = reported_opener(windows[best]) + body if body != said.text else body
    return Said(best + 1, text)


_VOCATIVE = pattern("vocative").pattern
_CALLED_LAST = re.compile(rf",\s*{_VOCATIVE}(?=[.!?]?$)", re.IGNORECASE)
_CALLED_FIRST = re.compile(rf"^{_VOCATIVE},\s*(?=\w)", re.IGNORECASE)


def without_vocatives(text: str) -> str:
    """The sentence without a word that calls someone, at its end or its start, outside any quotation ("A mirror
    is for checking your reflection, sir." -> "A mirror is for checking your reflection."). Restating a line of
    dialogue, the model keeps the speaker's "sir" or "Mendicants," in the answer's own voice."""
    text = _CALLED_LAST.sub("", text)
    shorter = _CALLED_FIRST.sub("", text)
    return shorter[:1].upper() + shorter[1:] if shorter != text else text


def parse_said(reply: str, n_lines: int) -> list[Said]:
    """The reply's items, in order, each without words that call someone (`without_vocatives`); a line without a
    number in 1..n_lines, or one said twice, is dropped."""
    out: list[Said] = []
    for raw in reply.splitlines():
        m = _ITEM_LINE.match(raw)
        if not m:
            continue
        k, text = int(m.group(1)), without_vocatives(m.group(2).strip())
        if 1 <= k <= n_lines and text and all(s.text != text for s in out):
            out.append(Said(k, text))
    return out[:MAX_SENTENCES]


ECHO_SHARE = 0.5  # of a sentence's words from the prompt's made-up example and from no line: an echo of it


def echoes_example(said: Said, windows: list[EvidenceWindow]) -> bool:
    """Whether the sentence restates the say prompt's made-up example rather than a line ("Kd 8 says that the
    potter's kiln illustrates a wise person who tests what they hear"): most of its words are the example's and
    none of the lines'. It says nothing of the texts; shown among what did not stand, it showed the reader the
    prompt."""
    own = claim_tokens(said.text)
    lines = {t for w in windows for t in claim_tokens(line_text(w))}
    echoed = [t for t in own if t in _example_words() and t not in lines]
    return bool(own) and len(echoed) >= ECHO_SHARE * len(own)


@cache
def _example_words() -> frozenset[str]:
    system = load_prompt("say_system")
    return frozenset(claim_tokens(system[system.find("An example of the form only"):]))


def as_draft(said: list[Said], windows: list[EvidenceWindow]) -> str:
    """The sentences as one paragraph, each cited by the reference of the line it restates ("… fuel
    [MN 72:19.11–19.18]."). An item that quotes several sentences of its line is read as several sentences by the
    checks: each is given the line's reference (else all but its last went as uncited)."""
    out: list[str] = []
    for s in said:
        ref = windows[s.line - 1].ref
        out.extend(with_refs(piece.text, [ref]) for piece in split_sentences(s.text) if piece.text.strip())
    return " ".join(out)
