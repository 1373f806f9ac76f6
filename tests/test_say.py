"""Say from the selected lines: the model restates each chosen line in a sentence of its own, held by a grammar to
open it with the line's number; the citation is the line's, the answer's own sentences stand above the key lines."""

import pytest

from chat.pipeline.answer import FinalEvent, TokenEvent
from chat.pipeline.say import as_draft, parse_said, say_grammar
from chat.providers.scripted import ScriptedLLM
from indexing.vocabulary import ABSTAIN_SENTENCE

from helpers_tools import open_library

QUESTION = "What does the Fire Sermon say is burning?"
FOLLOW = "What is the all?\nWhy is the eye burning?"


GRAMMARS: list[str | None] = []


class GrammarLLM(ScriptedLLM):
    """The scripted LLM as a provider that holds its output to a grammar (as llama.cpp does), recording each."""

    def with_grammar(self, grammar_fn):
        GRAMMARS.append(grammar_fn())
        return self


def _scholar(base, replies: list[str], **overrides):
    from chat.pipeline.scholar import Scholar

    library = open_library(base)
    settings = library.settings.model_copy(update={"memory_db": base / "memory.sqlite", **overrides})
    llm = GrammarLLM(list(replies))
    GRAMMARS.clear()
    return Scholar(settings, library, llm), llm


def test_the_grammar_allows_only_numbered_sentences_of_the_lines_shown_or_the_abstention():
    grammar = say_grammar(2)
    assert '"2" | "1"' in grammar and '"3"' not in grammar and ABSTAIN_SENTENCE in grammar
    llama_cpp = pytest.importorskip("llama_cpp")
    assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None
    # a stop inside a sentence only before a digit ("AN 3.36"); no code characters the model drifted into
    assert '"." [0-9]' in grammar and "=<>{}" in grammar


def test_the_grammar_holds_sentences_to_english_and_pali_letters():
    import re

    # a GBNF character class reads as a regex one: the model drifted into Cyrillic mid-word ("… and аппro.")
    plain = re.compile(re.search(r"^plain ::= (\[.*\])$", say_grammar(2), re.MULTILINE).group(1))
    assert all(plain.match(c) for c in "aZāṁñṭḍṇḷīū’— ,;")
    assert not any(plain.match(c) for c in "аппэ请，ʼ😀")


def test_each_sentence_is_cited_by_the_line_it_restates_never_by_a_number_it_typed():
    said = parse_said('[2] They burn "with the fires of greed, hate, and delusion".\n[7] Out of range.\n'
                      "[1] All is burning.\n[1] All is burning.", 2)
    assert [(s.line, s.text) for s in said] == [(2, 'They burn "with the fires of greed, hate, and delusion".'),
                                               (1, "All is burning.")]

    class W:
        def __init__(self, ref):
            self.ref = ref
    draft = as_draft(said, [W("SN 35.28:1.3–2.1"), W("SN 35.28:2.5–2.6")])
    assert draft == ('They burn "with the fires of greed, hate, and delusion" [SN 35.28:2.5–2.6]. '
                     "All is burning [SN 35.28:1.3–2.1].")


def test_an_item_quoting_several_sentences_of_its_line_is_cited_whole():
    class W:
        ref = "MN 131:3.1–3.4"
    said = parse_said('[1] The Buddha says: "Don’t run back to the past. What’s past is left behind."', 1)
    draft = as_draft(said, [W()])
    from tools.language.sentences import split_sentences
    pieces = split_sentences(draft)
    assert all(p.citations and p.citations[0].raw == "MN 131:3.1–3.4" for p in pieces)
    # the quotation is one sentence with its stops: not split at "the past." (straight quotes as curly ones)
    assert len(pieces) == 1 and pieces[0].plain.endswith('What’s past is left behind."')
    # a quotation left open runs to the end of the item: its sentences are split and each is cited
    open_quote = split_sentences(as_draft(parse_said('[1] The Buddha says: "Don’t run back. Go on.', 1), [W()]))
    assert len(open_quote) == 2 and all(p.citations for p in open_quote)


async def test_the_model_restates_the_selected_lines_and_its_sentences_lead_the_answer(base):
    reply = '[1] The Buddha teaches that "all is burning": the eye and sights are burning.'
    scholar, llm = _scholar(base, [reply, FOLLOW])
    events = [ev async for ev in scholar.astream(QUESTION)]
    answer = events[-1].answer
    assert isinstance(events[-1], FinalEvent) and answer.status == "answered"
    # one call wrote the answer: the selected lines numbered from 1, under the say grammar, no ReAct frame
    prompt = llm.prompts[0]
    # the lines by their words alone: no reference the model could copy into a sentence
    assert "[1] “Mendicants, all is burning." in prompt[-1].content and "SN 35.28:" not in prompt[-1].content
    assert QUESTION in prompt[-1].content
    assert "Thought" not in prompt[0].content and GRAMMARS[0] == say_grammar(1)
    own = [s for s in answer.sentences if s.origin == "model"]
    assert own and own[0].text.startswith('The Buddha teaches that "all is burning"')
    assert own[0].citations and own[0].citations[0].startswith("SN 35.28:")
    # its own words first, the line it restates quoted below, and the stream is the answer
    assert answer.sentences[0].origin == "model" and answer.sentences[-1].origin == "quote"
    assert "".join(ev.text for ev in events if isinstance(ev, TokenEvent)) == answer.answer
    assert answer.answer.index("all is burning") < answer.answer.index("\n\n> “")


async def test_a_wrong_restatement_is_removed_and_the_lines_still_answer(base):
    reply = "[1] The Buddha says the ear is burning with the fires of joy."
    scholar, _ = _scholar(base, [reply, FOLLOW])
    answer = await scholar.aask(QUESTION)
    assert "joy" not in answer.answer and answer.unsupported_claims
    assert answer.status == "answered" and [s.origin for s in answer.sentences] == ["quote"]


async def test_switched_off_the_model_writes_in_the_react_frame_as_before(base):
    reply = "Thought: ok\nAnswer: The Buddha says the eye is burning with the fires of greed, hate and delusion [1]."
    scholar, llm = _scholar(base, [reply, FOLLOW], say_from_lines=False)
    answer = await scholar.aask(QUESTION)
    assert "Thought:" in llm.prompts[0][0].content or "Action" in llm.prompts[0][0].content
    assert [s.origin for s in answer.sentences] == ["model", "quote"]


def test_a_question_that_counts_is_told_which_line_sets_the_list_out():
    from chat.pipeline.say import list_hint

    class W:
        def __init__(self, text):
            self.texts = [text]

    naming = W("Mendicants, the eight worldly conditions revolve around the world.")
    items = W("What eight? Gain and loss, fame and disgrace, blame and praise, pleasure and pain.")
    question = "What are the eight worldly conditions that the world revolves around?"
    assert list_hint(question, [naming, items]) == 'Line 2 gives the eight after "What eight?": name every one of them.'
    assert list_hint("What are the four perils?", [naming, items]) == ""  # another count: not this list
    assert list_hint("What is the world?", [naming, items]) == ""  # the question counts nothing
