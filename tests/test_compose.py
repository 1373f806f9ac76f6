"""The model cites passages by number; code maps the numbers to references and holds the model to a grammar."""

from __future__ import annotations

import pytest

from chat.pipeline.compose import evidence_only, key_lines, key_windows, map_numbers, quote_text
from chat.pipeline.grammar import answer_grammar, react_grammar
from indexing.vocabulary import ABSTAIN_SENTENCE
from tools.search.windows import EvidenceWindow
from tools.turn import TurnRecorder


def _window(doc: str, sid: str, segs: tuple[str, ...], text: str) -> EvidenceWindow:
    return EvidenceWindow(doc, sid, "A Title", segs, tuple(text.split("|")), 1.0, segs[0])


@pytest.fixture
def recorder() -> TurnRecorder:
    rec = TurnRecorder()
    rec.number([_window("sn1.1", "SN 1.1", ("sn1.1:1.5", "sn1.1:1.6"), "Not standing, | not swimming."),
                _window("mn72", "MN 72", ("mn72:19.11",), "Suppose that fire was extinguished.")])
    return rec


def test_numbers_become_the_references_of_the_passages_shown(recorder):
    text, unknown = map_numbers("I crossed without standing [1]. The fire went out [2][1]. Invented [7].", recorder)
    assert text == ("I crossed without standing [SN 1.1:1.5–1.6]. The fire went out [MN 72:19.11; SN 1.1:1.5–1.6]. "
                    "Invented.")
    assert unknown == [7]


def test_an_overlapping_window_keeps_the_number_it_was_shown_under(recorder):
    again = _window("sn1.1", "SN 1.1", ("sn1.1:1.6", "sn1.1:1.7"), "not swimming. | Then")
    assert recorder.number([again]) == [1] and len(recorder.evidence) == 2


def test_the_evidence_is_quoted_with_its_references_and_can_stand_alone(recorder):
    shown = key_lines(recorder.evidence)
    assert shown.splitlines()[0] == "> “Not standing, not swimming.” [SN 1.1:1.5–1.6]"
    alone = evidence_only(recorder.evidence, shown)
    assert alone.startswith("The texts I have say this (SN 1.1, MN 72):\n\n> “")
    # asked of someone these texts never name, the lines are the closest found, not what the texts say of them
    unnamed = evidence_only(recorder.evidence, shown, ["Nanda"])
    assert unnamed.startswith("None of the texts I found names Nanda; the closest passages are these (SN 1.1, MN 72)")


def test_a_name_the_question_gives_and_the_texts_found_never_use_is_told(base):
    from chat.pipeline.scholar import _names_absent
    from tools.search.windows import rank_windows

    from helpers_tools import open_library

    library = open_library(base)
    question = "What did the Buddha teach the mendicants at Gayā Head?"
    saw = rank_windows(library, library.evidence, question, ["mn21"], limit=1)
    assert _names_absent(question, saw, library) in (["Gayā"], ["Gayā Head"])
    fire = rank_windows(library, library.evidence, question, ["sn35.28"], limit=1)
    assert _names_absent(question, fire, library) == []
    # a title the reader quotes names a text, and a book's name is no person's
    assert _names_absent("What does “Gayā Head” say in the Dhammapada?", saw, library) == []


def _scored(seg: str, score: float, doc: str = "mn72", sid: str = "MN 72") -> EvidenceWindow:
    return EvidenceWindow(doc, sid, "A Title", (f"{doc}:{seg}",), ("Some words.",), score, f"{doc}:{seg}")


def test_the_key_lines_quote_a_second_window_only_when_it_ranks_close_to_the_first():
    first, close, far = _scored("19.11", 1.3), _scored("2.1", 1.1), _scored("3.1", 0.5)
    # one text: quoted in reading order, as the reader would meet them
    assert [w.ref for w in key_windows([first, close, far])] == ["MN 72:2.1", "MN 72:19.11"]
    assert [w.ref for w in key_windows([first, far])] == ["MN 72:19.11"]  # ranked far below: not quoted
    other = _scored("1.5", 1.2, "sn1.1", "SN 1.1")
    assert [w.ref for w in key_windows([first, other])] == ["MN 72:19.11", "SN 1.1:1.5"]  # two texts: by rank
    assert key_windows([]) == []


def test_the_second_key_window_stays_in_the_first_windows_text_unless_another_text_is_clearly_better():
    first, own = _scored("1.3", 1.47, "sn3.25", "SN 3.25"), _scored("4.15", 1.12, "sn3.25", "SN 3.25")
    tie = _scored("1.14", 1.15, "sn3.12", "SN 3.12")
    assert [w.ref for w in key_windows([first, tie, own])] == ["SN 3.25:1.3", "SN 3.25:4.15"]
    better = _scored("1.14", 1.3, "sn3.12", "SN 3.12")
    assert [w.ref for w in key_windows([first, better, own])] == ["SN 3.25:1.3", "SN 3.12:1.14"]


def test_a_long_line_is_quoted_in_part_rather_than_left_out():
    lines = ("Rāhula, the interior earth element is anything hard and solid. This includes",
             "head hair, body hair, nails, teeth, skin, flesh, sinews, bones, " * 12)
    window = EvidenceWindow("mn62", "MN 62", "T", ("mn62:8.1", "mn62:8.2"), lines, 1.0, "mn62:8.1")
    quoted = quote_text(window, limit=200)
    assert quoted.startswith("Rāhula") and "head hair, body hair" in quoted and quoted.endswith(" …")
    assert len(quoted) <= 205
    # a short remainder is not worth a fragment: the quotation ends with the last whole line
    assert quote_text(window, limit=90) == lines[0]


def test_the_grammars_allow_only_the_numbers_shown_and_parse_in_llama_cpp():
    grammar = answer_grammar(2)
    assert 'num ::= "1" | "2"\n' in grammar and ABSTAIN_SENTENCE in grammar
    react = react_grammar(["lookup_sutta", "search_passages"], 0)
    assert "num ::=" not in react and 'answer ::= "' + ABSTAIN_SENTENCE in react  # nothing shown: no answer yet
    llama_cpp = pytest.importorskip("llama_cpp")
    for text in (grammar, react, react_grammar(["lookup_sutta"], 3, notes=True)):
        assert llama_cpp.LlamaGrammar.from_string(text, verbose=False) is not None


def test_a_summary_quotes_its_blurb_with_the_blurbs_own_quotation_marks_nested():
    from chat.pipeline.compose import Summary

    s = Summary("SN 35.28", "Burning", "The “all” is burning.")
    assert s.text == "SuttaCentral's summary of SN 35.28, Burning: “The ‘all’ is burning.” [SN 35.28]"
