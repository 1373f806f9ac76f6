"""Say from the selected lines: the model restates each chosen line in a sentence of its own, held by a grammar to
open it with the line's number; the citation is the line's, the answer's own sentences stand above the key lines."""

import pytest

from chat.pipeline.answer import FinalEvent, TokenEvent
from chat.pipeline.say import (
    answering_part,
    as_draft,
    copied,
    parse_said,
    reported_grammar,
    restated_for_copies,
    say_grammar,
)
from chat.providers.scripted import ScriptedLLM
from indexing.vocabulary import ABSTAIN_SENTENCE

from helpers_tools import open_library

QUESTION = "What does the Fire Sermon say is burning?"
FOLLOW = "What is the all?\nWhy is the eye burning?"
COPY = "[1] Burning with the fires of greed, hate and delusion, I say."  # the selected line's own words


GRAMMARS: list[str | None] = []


class GrammarLLM(ScriptedLLM):
    """The scripted LLM as a provider that holds its output to a grammar (as llama.cpp does), recording each, and the
    options of each streamed call (a sampling temperature)."""

    def with_grammar(self, grammar_fn):
        GRAMMARS.append(grammar_fn())
        return self

    async def astream_chat(self, messages, **kwargs):
        OPTIONS.append(kwargs)
        return await super().astream_chat(messages, **kwargs)


OPTIONS: list[dict] = []


def _scholar(base, replies: list[str], **overrides):
    from chat.pipeline.scholar import Scholar

    library = open_library(base)
    # more drafts are sampled only where a test asks for them: the others script each reply the model gives
    settings = library.settings.model_copy(update={"memory_db": base / "memory.sqlite", "say_samples": 0,
                                                   **overrides})
    llm = GrammarLLM(list(replies))
    GRAMMARS.clear()
    OPTIONS.clear()
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
    again = "[1] SN 35.28 says that the ear burns with the fires of joy."
    scholar, llm = _scholar(base, [reply, again, FOLLOW])
    answer = await scholar.aask(QUESTION)
    assert "joy" not in answer.answer and len(answer.unsupported_claims) == 2  # both tries, each removed
    assert answer.status == "answered" and [s.origin for s in answer.sentences] == ["quote"]
    assert len(llm.prompts) == 3  # asked again once, not more


async def test_no_follow_up_asks_about_what_the_checks_took_out(base):
    reply = "[1] The Buddha says the ear is burning with the fires of joy."
    again = "[1] SN 35.28 says that the ear burns with the fires of joy."
    follow = "Why does the ear burn with the fires of joy?\nWhat is the all?\nWhy is the eye burning?"
    scholar, _ = _scholar(base, [reply, again, follow])
    answer = await scholar.aask(QUESTION)
    assert len(answer.unsupported_claims) == 2  # removed: the reader is told so, and is not then invited to explore it
    assert answer.follow_ups == ["What is the all?", "Why is the eye burning?"]


async def test_told_its_sentence_did_not_stand_the_model_says_it_again_and_the_second_stands(base):
    wrong = "[1] The Buddha says the ear is burning with the fires of joy."
    right = "[1] SN 35.28 says that all is burning: the eye, sights and eye consciousness."
    scholar, llm = _scholar(base, [wrong, right, FOLLOW])
    answer = await scholar.aask(QUESTION)
    # the second prompt is the first exchange, cached, and what was wrong with it; held to reported speech
    second = llm.prompts[1]
    assert second[:-2] == llm.prompts[0] and second[-2].content == wrong
    assert "said what the lines do not say" in second[-1].content and GRAMMARS[1].startswith("root ::= item")
    own = [s.text for s in answer.sentences if s.origin == "model"]
    assert own == ["SN 35.28 says that all is burning: the eye, sights and eye consciousness."]
    # the reader still sees what was said first and why it did not stand; the stream is the checked answer
    assert [c.sentence for c in answer.unsupported_claims] == ["The Buddha says the ear is burning with the fires "
                                                               "of joy."]
    assert "joy" not in answer.answer


async def test_when_neither_try_stood_more_drafts_are_sampled_and_the_one_the_drafts_agree_on_stands(base):
    wrong = "[1] The Buddha says the ear is burning with the fires of joy."
    again = "[1] SN 35.28 says that the ear burns with the fires of joy."
    samples = ["[1] The ear burns with the fires of joy.",  # agrees with the two tries, and is as wrong
               "[1] The eye is burning, and sights are burning.",
               "[1] All is burning: the eye and sights are burning."]
    scholar, llm = _scholar(base, [wrong, again, *samples, FOLLOW], say_samples=3, say_sample_temperature=0.8)
    answer = await scholar.aask(QUESTION)
    # each sample is the first say prompt again, sampled, under the say grammar
    assert llm.prompts[2] == llm.prompts[3] == llm.prompts[4] == llm.prompts[0]
    assert [o.get("temperature") for o in OPTIONS[2:5]] == [0.8, 0.8, 0.8] and "temperature" not in OPTIONS[0]
    assert GRAMMARS[2] == GRAMMARS[0]
    # the wrong sample is passed over by the checks; of the two that agree, one stands
    own = [s.text for s in answer.sentences if s.origin == "model"]
    assert own and own[0] in {t.removeprefix("[1] ") for t in samples[1:]}
    assert "joy" not in answer.answer
    # the reader is told what the two tries said that did not stand; the samples passed over are the trace's
    assert len(answer.unsupported_claims) == 2
    assert any(t.tool == "sample_drafts" and "kept" in t.output_summary for t in answer.trace)


async def test_sampling_off_the_lines_answer_when_neither_try_stood(base):
    wrong = "[1] The Buddha says the ear is burning with the fires of joy."
    again = "[1] SN 35.28 says that the ear burns with the fires of joy."
    scholar, llm = _scholar(base, [wrong, again, FOLLOW], say_samples=0)
    answer = await scholar.aask(QUESTION)
    assert [s.origin for s in answer.sentences] == ["quote"] and len(llm.prompts) == 3


async def test_a_decline_of_lines_the_gate_let_through_is_asked_again_once_and_the_answer_stands(base):
    again = "[1] SN 35.28 says that all is burning: the eye, sights and eye consciousness."
    scholar, llm = _scholar(base, [ABSTAIN_SENTENCE, again, FOLLOW])
    answer = await scholar.aask(QUESTION)
    # told why it is asked again, held to reported speech, on the cached first exchange
    assert llm.prompts[1][:-2] == llm.prompts[0] and "said that no line answers" in llm.prompts[1][-1].content
    assert GRAMMARS[1].startswith("root ::= item")
    assert answer.status == "answered"
    assert [s.text for s in answer.sentences if s.origin == "model"] == [again.removeprefix("[1] ")]


async def test_declined_twice_the_reader_is_told_the_texts_do_not_say_it(base):
    scholar, llm = _scholar(base, [ABSTAIN_SENTENCE, "", FOLLOW])
    answer = await scholar.aask(QUESTION)
    assert len(llm.prompts) >= 2 and answer.status == "abstained"


def test_a_reply_that_only_copies_its_lines_is_told_apart_from_one_that_restates_them():
    class W:
        def __init__(self, text, source):
            self.texts, self.source = (text,), source

    lines = [W("This mind, mendicants, is radiant. But it is corrupted by passing corruptions.", "AN 1.51"),
             W("Heedfulness is the state free of death.", "Dhp 21")]

    def copy(reply: str) -> bool:
        return copied(parse_said(reply, 2)[0], lines)
    assert copy("[1] This mind, mendicants, is radiant.")
    assert not copy("[1] The mind is radiant but corrupted by passing corruptions.")
    assert not copy("[1] This mind is radiant.")  # too short to be a copy of anything
    assert copy("[2] This mind, mendicants, is radiant.")  # another line's words, under this line's number
    # said again in reported speech, the line's words are still a copy
    assert copy("[1] AN 1.51 says that this mind, mendicants, is radiant.")
    assert not copy("[1] AN 1.51 says that the mind is radiant, though passing corruptions corrupt it.")
    # each copy is replaced by what the second try restates of its line; one the second try left alone goes (its
    # line is quoted below the answer), unless nothing else is said
    first = parse_said("[1] This mind, mendicants, is radiant.\n[2] Heedfulness is the state free of death.\n"
                       "[1] But it is corrupted by passing corruptions.", 2)
    again = parse_said("[1] AN 1.51 says that the mind is radiant.\n[1] AN 1.51 says that corruptions come and go.", 2)
    assert [s.text for s in restated_for_copies(first, again, lines)] == [
        "AN 1.51 says that the mind is radiant.", "AN 1.51 says that corruptions come and go."]
    assert restated_for_copies(first, [], lines) == first  # nothing restated: the copies stand, as quotations
    # the second try opens each sentence with the text its line is from, in reported speech, and goes on in lower case
    grammar = reported_grammar(lines)
    assert '"[1] AN 1.51 says that " reported' in grammar and '"[2] Dhp 21 says that " reported' in grammar
    assert ABSTAIN_SENTENCE not in grammar  # it already answered from these lines
    assert grammar.startswith('root ::= item ("\\n" item){0,1}\n')  # two sentences at most: not every line again
    llama_cpp = pytest.importorskip("llama_cpp")
    assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None


def test_a_sentence_given_the_number_of_the_line_beside_its_own_takes_its_own_line_s_number():
    from types import SimpleNamespace as W

    from chat.pipeline.say import Said, renumbered

    lines = [W(texts=("If a clever person attends to the wise even for an hour, they swiftly experience the "
                      "teaching, like a tongue the taste of the soup.",), source="Dhp 65"),
             W(texts=("Though a fool attends to the wise for the rest of their life, they still don't experience "
                      "the teaching, like a spoon the taste of the soup.",), source="Dhp 64")]
    asked = "What does a fool who spends his whole life with a wise person resemble?"
    wrong = Said(1, "Dhp 65 says that a fool who spends his whole life with a wise person resembles a spoon the "
                    "taste of the soup.")
    assert renumbered(wrong, lines, asked) == Said(2, "Dhp 64 says that a fool who spends his whole life with a "
                                                      "wise person resembles a spoon the taste of the soup.")
    plain = Said(1, "A fool is like a spoon that never knows the taste of the soup.")
    assert renumbered(plain, lines, asked).line == 2
    # a sentence that holds a word of its own line only (the tongue) keeps its number, whatever else it borrows
    mixed = Said(1, "Dhp 65 says that a clever person is like a tongue, and a fool like a spoon.")
    assert renumbered(mixed, lines, asked) == mixed
    # words both lines hold decide nothing
    assert renumbered(Said(1, "Dhp 65 says that the soup has a taste."), lines, asked).line == 1


def test_said_again_the_part_of_a_line_that_answers_is_an_answer_and_the_whole_line_or_a_fragment_is_not():
    class W:
        def __init__(self, text, source):
            self.texts, self.source = (text,), source

    lines = [W("Heedfulness is the state free of death; heedlessness is the state of death. The heedful do not die, "
               "while the heedless are like the dead.", "Dhp 21"),
             W("The wanderer Vacchagotta went up to the Buddha and exchanged greetings with him. “Mister "
               "Gotama, where does the fire go?” “It doesn’t apply, Vaccha. Then, the fire is quenched for lack of "
               "fuel.”",
               "MN 72"),
             W("Mendicants, all is burning. The eye is burning. Burning with the fires of greed and hate, I say.",
               "SN 35.28")]

    def part(reply: str, question: str) -> bool:
        said = parse_said(reply, 3)[0]
        assert copied(said, lines)  # each is the line's words, word for word
        return answering_part(said, lines, question)
    heedful = "What does the Dhammapada say heedfulness is?"
    assert part("[1] Dhp 21 says that heedfulness is the state free of death; heedlessness is the state of death.",
                heedful)
    # the whole line (or most of it) says nothing the quotation below does not
    assert not part("[1] Dhp 21 says that heedfulness is the state free of death; heedlessness is the state of "
                    "death. The heedful do not die, while the heedless are like the dead.", heedful)
    # a whole sentence of the line that holds none of what is asked, the question's names aside
    assert not part("[2] MN 72 says that the wanderer Vacchagotta went up to the Buddha and exchanged greetings "
                    "with him.", "Where does a quenched fire go, according to the Buddha's reply to Vacchagotta?")
    # what a simile means answers a question about the simile, whatever its words
    arrow = [W("It’s like a person who is struck with an arrow, only to be struck with a second arrow. In the same "
               "way, when an ordinary person feels pain they sorrow and wail. They experience two feelings: physical "
               "and mental.", "SN 36.6")]
    said = parse_said("[1] SN 36.6 says that when an ordinary person feels pain they sorrow and wail.", 1)[0]
    assert answering_part(said, arrow, "In the simile of the two arrows, what is the second arrow?")
    assert not answering_part(said, arrow, "Where was the Buddha staying when he taught SN 36.6?")
    # a sentence past its short opening ("Then, …") is still the whole of what it says
    assert part("[2] MN 72 says that the fire is quenched for lack of fuel.", "Where does a quenched fire go?")
    assert part("[3] SN 35.28 says that all is burning. The eye is burning.", QUESTION)
    # a piece of a sentence, and the speaker's own "I say", are no sentence of the reader's
    assert not part("[3] SN 35.28 says that burning with the fires of greed and hate, I say.", QUESTION)
    assert not part("[3] SN 35.28 says that the fires of greed and hate, I say.", QUESTION)
    # not said in reported speech: a copy as before
    assert not part("[1] Heedfulness is the state free of death; heedlessness is the state of death.", heedful)


async def test_said_again_the_part_of_its_line_that_answers_is_the_model_s_own_sentence(base):
    again = "[1] SN 35.28 says that the eye is burning. Sights are burning. Eye consciousness is burning."
    scholar, _ = _scholar(base, [COPY, again, FOLLOW])
    answer = await scholar.aask(QUESTION)
    own = [s for s in answer.sentences if s.origin == "model"]
    # in quotation marks: the reader tells the text's words from the answer's
    assert [s.text for s in own] == ["SN 35.28 says that “the eye is burning. Sights are burning. Eye consciousness "
                                     "is burning.”"]
    assert all(s.citations and s.citations[0].startswith("SN 35.28:") for s in own)
    assert not any("I say" in s.text for s in own)


async def test_copies_of_the_lines_are_said_again_in_reported_speech_and_that_is_the_answer(base):
    again = "[1] SN 35.28 says that all is burning: the eye, sights and eye consciousness."
    scholar, llm = _scholar(base, [COPY, again, FOLLOW])
    answer = await scholar.aask(QUESTION)
    assert GRAMMARS[:2] == [say_grammar(1), reported_grammar(scholar_lines(llm))]
    own = [s for s in answer.sentences if s.origin == "model"]
    assert [s.text for s in own] == ["SN 35.28 says that all is burning: the eye, sights and eye consciousness."]
    assert own[0].citations[0].startswith("SN 35.28:")


@pytest.mark.parametrize("again", ["", "[1] SN 35.28 says that burning with the fires of greed, hate and delusion, "
                                   "I say."])
async def test_when_the_second_try_gives_nothing_new_the_copies_stand_as_quotations(base, again):
    scholar, _ = _scholar(base, [COPY, again, FOLLOW])
    answer = await scholar.aask(QUESTION)
    assert answer.status == "answered" and all(s.origin == "quote" for s in answer.sentences)
    assert "fires of greed" in answer.answer and "says that" not in answer.answer


def scholar_lines(llm):
    """The lines the say prompt showed, as windows with their text's reference (for the grammar they were given)."""
    import re

    class W:
        def __init__(self, source):
            self.source = source
    shown = re.findall(r"^\[(\d+)\] ", llm.prompts[0][-1].content, re.MULTILINE)
    return [W("SN 35.28") for _ in shown]


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


def test_a_sentence_that_restates_the_prompts_made_up_example_is_no_sentence_of_the_answer():
    from chat.pipeline.say import Said, echoes_example

    class W:
        def __init__(self, text):
            self.texts = (text,)

    lines = [W("“But, Visākhā, what reason do you have for asking me for these eight favors?”")]
    echo = Said(1, "Kd 8 says that the potter's kiln illustrates a wise person who tests what they hear.")
    assert echoes_example(echo, lines)
    assert not echoes_example(Said(1, "Visākhā asked the Buddha for eight favors."), lines)
    # the example's words where the lines have them too are the lines'
    kiln = [W("Suppose a potter fired pots in a kiln; a wise person tests what they hear.")]
    assert not echoes_example(echo, kiln)


async def test_a_reply_that_only_restates_the_example_is_asked_for_again(base):
    echo = "[1] The potter testing his pots illustrates a wise person, who tests what they hear."
    right = "[1] SN 35.28 says that all is burning: the eye, sights and eye consciousness."
    scholar, llm = _scholar(base, [echo, right, FOLLOW])
    answer = await scholar.aask(QUESTION)
    assert [s.text for s in answer.sentences if s.origin == "model"] == [right[4:]]
    assert "potter" not in answer.answer and not answer.unsupported_claims  # the echo is no claim to list


def test_a_dialogue_s_untagged_quotations_are_shown_to_the_model_with_who_says_them():
    from chat.pipeline.say import Said, listing
    from tools.search.windows import EvidenceWindow

    texts = ("“What do you think, great king? What would you do?”",
             "“Sir, what could I do but practice the teachings?”",
             "Then the Buddha said to him,", "“Good, great king.”")
    window = EvidenceWindow("sn3.99", "SN 3.99", "The Mountain", ("sn3.99:1.1", "sn3.99:1.2", "sn3.99:1.3",
                                                                  "sn3.99:1.4"), texts, 1.0, "sn3.99:1.1")
    shown = listing([window], [["the Buddha", "King Pasenadi", None, "the Buddha"]])
    # each reply the text leaves untagged is opened by its speaker; the one it introduces itself is not tagged again
    assert shown == ("[1] The Buddha: “What do you think, great king? What would you do?” King Pasenadi: “Sir, what "
                     "could I do but practice the teachings?” Then the Buddha said to him, “Good, great king.”")
    # narration alone, the Buddha's words alone, or no voices known: the lines as one quotation, as before
    plain = f"[1] “{' '.join(texts).strip('“”')}”"
    assert listing([window]) == plain
    assert listing([window], [["the Buddha", None, None, "the Buddha"]]) == plain
    # the script's line copied with its speaker is still a copy of the line
    assert copied(Said(1, "King Pasenadi: “Sir, what could I do but practice the teachings?”"), [window])


def test_a_word_that_calls_someone_is_left_out_of_the_answers_own_voice_but_not_out_of_a_quotation():
    said = parse_said("[1] The Buddha's mirror is for checking your reflection, sir.\n"
                      "[2] Mendicants, the eye is burning.\n"
                      "[1] Rāhula answered, “It’s for checking your reflection, sir.”", 2)
    assert [s.text for s in said] == ["The Buddha's mirror is for checking your reflection.", "The eye is burning.",
                                      "Rāhula answered, “It’s for checking your reflection, sir.”"]
    # a person spoken of, not to, stays
    assert parse_said("[1] The king gave alms to the householder.", 1)[0].text.endswith("householder.")
