"""Follow-up questions keep the thread (issue #12): the resolver's decisions, the conversation state in memory, each
resolution case through the Scholar (scripted model, tiny index), the dialogue eval, and one real two-turn dialogue."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from chat.pipeline.conversation import leans_on_conversation, new_subject_cue, people_in, spoken_of

from scholar_helpers import scholar_for, session_memory

FOLLOW = "What is the all?\nWhy is the eye burning?"
BURNING = "Thought: I can answer.\nAnswer: The eye is burning, sights are burning [SN 35.28:1.4]."
FIRE = "What does the Fire Sermon say is burning?"


def _tools(answer) -> list[str]:
    return [t.tool for t in answer.trace]


def _prompt_text(llm, call: int = 0) -> str:
    return "\n".join(m.content or "" for m in llm.prompts[call])


# ---- the resolver's reading of a question ------------------------------------------------------------------
@pytest.mark.parametrize("question", [
    "To whom was it taught?", "Which questions did he want answered?", "What happened to them then?",
    "And what do those in turn fulfil?", "Why does that discourse say so?", "What did she do there?",
    "Who was listening?", "And the third one?", "What about anger?",
    "What did Sāriputta say to him?",  # an object pronoun is someone other than the person the question names
    "Why did Ānanda praise her?",  # in the same clause as the name, never that person
    "What did Sāriputta say about it before he left?",  # "he" is Sāriputta, "it" is the conversation's
    "Why did the Buddha say he would not teach?",  # "the Buddha" is everyone's subject, so "he" may be anyone's
])
def test_questions_that_lean_on_the_conversation(question):
    assert leans_on_conversation(question) is not None


@pytest.mark.parametrize("question", [
    "Where do these texts compare the teaching to a raft?",  # "these texts" is the canon, not the last answer
    "Is there a teaching on crossing a flood by raft?",  # "is there" points at nothing
    "What does the Buddha teach about the four noble truths of suffering?",
    "Who was Angulimala's teacher before he met the Buddha?",  # "he" is the person the question itself names
    "What did Kisā Gotamī learn when she went from house to house?",
    # a pronoun inside a clause that opens after the person named is that person
    "What did the nun Subhā give to the man who harassed her in Jīvaka's mango grove?",
    "How did Ānanda reply when the Buddha praised him?",
    "Who was Aṅgulimāla?",  # one word of its own, but a person named is a subject
])
def test_questions_that_stand_on_their_own_words(question):
    assert leans_on_conversation(question) is None


class _Asked:
    """A question as the resolver reads it, naming no text."""

    def __init__(self, text: str):
        self.text = text

    def named_by(self, _how: str) -> list:
        return []


@pytest.mark.parametrize("question, kind", [
    ("Where does the Buddha compare anger to a saw?", None),  # "compare", but anger and a saw are its own subject
    ("Does the Middle Discourses say that too?", "same"),  # nothing of its own: the last subject, elsewhere
    ("Is it also in the Majjhima?", "more"),
])
def test_a_word_of_the_same_elsewhere_does_not_make_a_question_with_its_own_subject_a_follow_up(question, kind):
    from chat.pipeline.conversation import follow_up_kind
    from chat.pipeline.plan import PreviousTurn

    previous = PreviousTurn("What is the third method?", "The third method … [SN 48.43:4.8].",
                            cited_refs=["SN 48.43:4.8"], cited_suttas=["SN 48.43"], subject_suttas=["SN 48.43"])
    assert follow_up_kind(_Asked(question), previous) == kind


def test_people_an_answer_names_with_a_title():
    text = "Venerable Māluṅkyaputta asked; King Yama questions them [AN 3.36:2.1]. The Buddha answered."
    assert people_in(text) == ["Māluṅkyaputta", "Yama"]


def test_a_turn_is_about_what_its_own_sentences_cite_not_a_text_quoted_beside_them():
    from chat.pipeline.answer import AnswerSentence

    sentences = [
        AnswerSentence(text="A pole acrobat taught his apprentice Medakathālikā to climb.", origin="model",
                       citations=["SN 47.19:1.3–1.4"]),  # part of the citation it quotes
        AnswerSentence(text="Once upon a time, a pole acrobat said to his apprentice Medakathālikā …", origin="quote",
                       citations=["SN 47.19:1.3–1.7"]),
        AnswerSentence(text="At that time the nun Thullanandā was giving robes to acrobats …", origin="quote",
                       citations=["Bi Pc 28:1.2–1.8"]),
    ]
    spoken, words = spoken_of(sentences)
    assert spoken == ["SN 47.19"]
    assert "Medakathālikā" in words and "Thullanandā" not in words
    # quotations alone: nothing was spoken of, the caller falls back to all the texts cited
    assert spoken_of(sentences[1:]) == ([], "")


# ---- conversation state ------------------------------------------------------------------------------------
@pytest.mark.parametrize("question, cue", [
    ("Different topic: what does it say about anger?", "different topic"),
    ("New question — who was it taught to?", "new question"),
    ("Unrelated: what is the simile of the saw?", "unrelated"),
    ("OK, on another note, what did he say about the raft?", "on another note"),
    ("Changing the subject, what ends hatred?", "changing the subject"),
    ("Something else: where was he staying?", "something else"),
])
def test_the_reader_can_say_a_new_subject_starts(question, cue):
    assert new_subject_cue(question) == cue


@pytest.mark.parametrize("question", [
    "What does the new monk do?", "Is this question different from the last one?",
    "What other topic does it treat?", "Unrelated thoughts are what, in MN 20?", "New monks: what must they learn?",
])
def test_a_question_that_only_mentions_a_new_thing_is_no_cue(question):
    assert new_subject_cue(question) is None


async def test_a_new_subject_cue_is_not_answered_within_the_previous_sutta(base, tmp_path):
    anger = "Thought: I can answer.\nAnswer: Anger is burning too [SN 35.28:1.4]."
    scholar, _ = scholar_for(base, [BURNING, FOLLOW, anger, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask(FIRE, session_id="s")
    answer = await scholar.aask("Different topic: what do they say about anger?", session_id="s")
    assert answer.resolution.kind == "new" and "different topic" in answer.resolution.reason
    assert answer.resolution.scope == [] and _tools(answer)[:2] == ["resolve_question", "search_passages"]


async def test_memory_keeps_each_turns_state_and_the_last_answered_turn(tmp_path):
    mem = session_memory(tmp_path / "m.sqlite", "s1")
    await mem.add_turn("Q1", "A1 [MN 21:20.1]", cited_refs=["MN 21:20.1"], search_query="saw", status="answered",
                       cited_suttas=["MN 21"], subject_suttas=["MN 21"], people=["Kakacūpama"])
    await mem.add_turn("Q2", "I don't find this.", cited_refs=[], search_query="lotus", status="abstained")
    again = session_memory(tmp_path / "m.sqlite", "s1")  # a restarted process
    turns = await again.turns()
    assert [(t.question, t.status, t.answered) for t in turns] == [("Q1", "answered", True),
                                                                    ("Q2", "abstained", False)]
    assert (turns[0].cited_suttas, turns[0].subject_suttas, turns[0].people) == (["MN 21"], ["MN 21"],
                                                                                 ["Kakacūpama"])
    assert (await again.previous_turn()).question == "Q2"
    assert (await again.last_answered()).question == "Q1"
    # the refusal is not recalled to the model
    assert await again.recap() == ("(Earlier in this conversation: the reader asked “Q1” and was shown passages "
                                   "of MN 21.)")


# ---- each resolution case through the Scholar --------------------------------------------------------------
async def test_pronoun_follow_up_is_answered_within_the_previous_sutta(base, tmp_path):
    where = "Thought: The setting says it.\nAnswer: He was staying near Gayā, at Gayā Head [SN 35.28:1.1]."
    scholar, llm = scholar_for(base, [BURNING, FOLLOW, where, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask(FIRE, session_id="s")
    answer = await scholar.aask("Where was he staying when he taught it?", session_id="s")

    assert answer.resolution.kind == "follow_up" and answer.resolution.scope == ["SN 35.28"]
    assert "points back" in answer.resolution.reason
    assert _tools(answer) == ["resolve_question", "lookup_sutta"]  # its words are all in SN 35.28: no search
    assert answer.trace[1].input["sutta_id"] == "SN 35.28"
    assert "Gayā Head" in _prompt_text(llm, 2)  # asked "where": the sutta's opening is among the evidence
    assert answer.status == "answered" and {c.sutta_id for c in answer.citations} == {"SN 35.28"}

    # the same words with no conversation behind them are searched in the whole library, not in SN 35.28
    alone, _ = scholar_for(base, [where, FOLLOW], memory_db=tmp_path / "m.sqlite")
    fresh = await alone.aask("Where was he staying when he taught it?", session_id="other")
    assert fresh.resolution.kind == "first" and _tools(fresh)[0] == "search_passages"


async def test_a_follow_up_reads_its_sutta_without_the_summary_or_title_line_the_first_turn_was_given(base, tmp_path):
    blurb = "taught in detail"  # MN 10's blurb in the tiny corpus
    path = "Thought: I can answer.\nAnswer: The four kinds of mindfulness meditation are the path [MN 10:2.1]."
    where = "Thought: The setting says it.\nAnswer: He was staying in the land of the Kurus [MN 10:1.2]."
    scholar, llm = scholar_for(base, [path, FOLLOW, where, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask("What does MN 10 teach?", session_id="s")
    assert blurb in _prompt_text(llm, 0)
    answer = await scholar.aask("Where was he staying when he taught it?", session_id="s")
    assert answer.resolution.kind == "follow_up" and answer.trace[1].input["sutta_id"] == "MN 10"
    observation = _prompt_text(llm, 2).rsplit("Observation:", 1)[1]
    assert "MN 10 Mindfulness Meditation" in _prompt_text(llm, 0) and "Kurus" in observation
    assert blurb not in observation and "MN 10 Mindfulness Meditation" not in observation
    assert observation.lstrip().startswith("[1] MN 10:")  # the passages, each with the sutta's name


def test_he_adds_the_name_the_last_answer_gave_only_when_the_question_has_no_words_of_its_own(base):
    from chat.pipeline.conversation import Resolution, scoped_plan
    from chat.pipeline.plan import PreviousTurn
    from tools.search.query import analyse_query

    from helpers_tools import open_library

    library = open_library(base)
    anchor = PreviousTurn("What is the simile of the saw?", "…", cited_refs=["MN 21:20.2"])

    def query(question: str) -> str:
        resolution = Resolution("follow_up", "it points back", scope=["MN 21"], people=["Moḷiyaphagguna"])
        plan = scoped_plan(library, analyse_query(library, question), anchor, resolution, "auto")
        return plan.steps[0].kwargs["query"]

    assert "Moḷiyaphagguna" in query("What did he say?")  # the name is all there is to look for
    assert "Moḷiyaphagguna" not in query("How was he told to meditate?")  # its own words find the lines


def test_a_scoped_follow_up_reads_fewer_passages_of_its_sutta_than_a_first_question(base):
    from chat.pipeline.conversation import FOLLOW_UP_WINDOWS, Resolution, scoped_plan
    from chat.pipeline.plan import PreviousTurn
    from tools.function_tools import CanonTools
    from tools.search.query import analyse_query
    from tools.turn import TurnRecorder

    from helpers_tools import open_library

    library = open_library(base)
    anchor = PreviousTurn("What does MN 10 teach?", "…", cited_refs=["MN 10:2.1"])
    resolution = Resolution("follow_up", "it points back", scope=["MN 10"])
    question = analyse_query(library, "Where was he staying when he taught it?")
    plan = scoped_plan(library, question, anchor, resolution, "auto")
    [step] = [s for s in plan.steps if s.tool == "lookup_sutta"]
    assert step.windows == FOLLOW_UP_WINDOWS

    def shown(windows: int) -> int:
        result = CanonTools(library, TurnRecorder()).lookup_named(step.sutta, "What does MN 10 teach?", windows=windows)
        return len(result.evidence)

    assert shown(0) > FOLLOW_UP_WINDOWS - 1 and shown(FOLLOW_UP_WINDOWS - 1) == FOLLOW_UP_WINDOWS - 1


async def test_a_follow_up_bringing_words_its_sutta_lacks_also_searches_the_library(base, tmp_path):
    saw = ("Thought: I can answer.\nAnswer: Anyone who had a malevolent thought would not be following the "
           "instructions [MN 21:20.1].")
    scholar, llm = scholar_for(base, [BURNING, FOLLOW, saw, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask(FIRE, session_id="s")
    answer = await scholar.aask("Does it also speak of bandits with a two-handled saw?", session_id="s")

    assert answer.resolution.scope == ["SN 35.28"] and "bandit" in answer.resolution.reason.partition("searched")[2]
    assert _tools(answer) == ["resolve_question", "lookup_sutta", "search_passages"]
    text = _prompt_text(llm, 2)
    assert text.index("SN 35.28") < text.index("MN 21:20.1")  # the sutta under discussion first, then the rest
    assert answer.status == "answered" and "MN 21" in {c.sutta_id for c in answer.citations}


async def test_elliptical_follow_up_reads_the_previous_sutta_by_its_words(base, tmp_path):
    saw = ("Thought: I can answer.\nAnswer: Even if bandits were to sever you limb from limb with a two-handled saw, "
           "a malevolent thought would not follow the instructions [MN 21:20.1].")
    love = "Thought: I can answer.\nAnswer: One should meditate spreading a heart full of love [MN 21:20.2]."
    scholar, llm = scholar_for(base, [saw, FOLLOW, love, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask("What does MN 21 say about the saw?", session_id="s")
    answer = await scholar.aask("And what about love?", session_id="s")

    assert answer.resolution.kind == "follow_up" and answer.resolution.scope == ["MN 21"]
    lookup = answer.trace[1]
    assert lookup.tool == "lookup_sutta" and lookup.input == {"sutta_id": "MN 21", "query": "And what about love?"}
    assert "[1] MN 21:20.2" in _prompt_text(llm, 2)  # the line about love comes first
    assert answer.status == "answered" and answer.citations[0].ref == "MN 21:20.2"


async def test_a_new_subject_resets_the_scope_and_carries_nothing_over(base, tmp_path):
    mind = ("Thought: I can answer.\nAnswer: The four kinds of mindfulness meditation are the path to convergence "
            "[MN 10:2.1].")
    scholar, llm = scholar_for(base, [BURNING, FOLLOW, mind, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask(FIRE, session_id="s")
    answer = await scholar.aask("What does MN 10 say about the four kinds of mindfulness meditation?",
                                session_id="s")

    assert answer.resolution.kind == "new" and answer.resolution.scope == []
    assert answer.resolution.reason == "it names MN 10"
    assert [t.input.get("sutta_id") for t in answer.trace if t.tool == "lookup_sutta"] == ["MN 10"]
    assert FIRE not in _prompt_text(llm, 2)  # no history carried into a new subject
    assert {c.sutta_id for c in answer.citations} == {"MN 10"}

    # a question with a subject of its own, naming nothing, is a new subject too: searched, not scoped
    other, _ = scholar_for(base, [mind, FOLLOW], memory_db=tmp_path / "m.sqlite")
    topic = await other.aask("Which discourse teaches the noble truth of the origin of suffering and craving?",
                             session_id="s")
    assert topic.resolution.kind == "new" and "subject of its own" in topic.resolution.reason
    assert _tools(topic)[1] == "search_passages" and "lookup_sutta" not in _tools(topic)


async def test_the_next_verse_reads_on_into_the_next_text(base, tmp_path):
    hatred = "Thought: I can answer.\nAnswer: For those who bear such a grudge, hatred is never laid to rest [Dhp 3:3]."
    love = "Thought: I can answer.\nAnswer: Hatred is laid to rest by love [Dhp 4:2]."
    scholar, llm = scholar_for(base, [hatred, FOLLOW, love, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask("What does Dhp 3 say about a grudge?", session_id="s")
    answer = await scholar.aask("What does the next verse say?", session_id="s")

    assert answer.resolution.follow_up == "next" and answer.resolution.scope == ["Dhp 3"]
    assert answer.trace[1].tool == "expand_context" and answer.trace[1].input["ref"].startswith("Dhp 3:")
    assert "Dhp 4:1" in _prompt_text(llm, 2)  # past the end of Dhp 3, into Dhp 4
    assert answer.status == "answered" and answer.citations[0].sutta_id == "Dhp 4"


async def test_the_next_lines_answer_a_reading_on_even_when_the_model_declines(base, tmp_path):
    # asked to read on, the small model sometimes writes only "I don't find this …": the lines it was shown are
    # still what the reader asked for, and they are quoted
    hatred = "Thought: I can answer.\nAnswer: For those who bear such a grudge, hatred is never laid to rest [Dhp 3:3]."
    scholar, _ = scholar_for(base, [hatred, FOLLOW, "I don't find this in the texts I have.", FOLLOW],
                             memory_db=tmp_path / "m.sqlite")
    await scholar.aask("What does Dhp 3 say about a grudge?", session_id="s")
    answer = await scholar.aask("What does the next verse say?", session_id="s")

    assert answer.resolution.follow_up == "next"
    assert answer.status == "answered" and answer.citations and answer.citations[0].sutta_id == "Dhp 4"
    assert "I don't find this" not in answer.answer


async def test_reading_on_past_the_last_line_of_a_text_says_it_ends_there(base, tmp_path):
    # the tiny library holds no text after AN 4.274 in its book: nothing to read on into, and nothing to ask
    # the model (the script has no reply for the second turn, so a model call would fail the test)
    said = "Thought: I can answer.\nAnswer: It calls this the path that goes to the unconditioned [1]."
    scholar, llm = scholar_for(base, [said, FOLLOW], memory_db=tmp_path / "m.sqlite")
    first = await scholar.aask("What does AN 4.274 say?", session_id="s")
    assert first.status == "answered" and first.citations[0].ref.startswith("AN 4.274:")
    answer = await scholar.aask("What comes right after that?", session_id="s")

    assert answer.resolution.follow_up == "next"
    assert answer.status == "answered" and [c.ref for c in answer.citations] == ["AN 4.274:1.1"]
    assert answer.answer.startswith("Nothing follows AN 4.274:1.1") and "last passage of AN 4.274" in answer.answer
    assert len(llm.prompts) == 2 and answer.follow_ups


async def test_the_same_teaching_in_the_long_discourses_finds_the_parallel(base, tmp_path):
    sn = "Thought: I can answer.\nAnswer: It is the craving that leads to future lives [SN 56.11:6.1]."
    dn = "Thought: I can answer.\nAnswer: Yes: it's the craving that leads to future lives [DN 22:18.1]."
    scholar, llm = scholar_for(base, [sn, FOLLOW, dn, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask("What does SN 56.11 say is the noble truth of the origin of suffering?", session_id="s")
    answer = await scholar.aask("Does the Long Discourses have the same teaching?", session_id="s")

    assert answer.resolution.kind == "follow_up" and answer.resolution.follow_up == "same"
    search = answer.trace[1]
    assert search.tool == "search_passages" and search.input["collection"] == "DN"
    assert "origin of suffering" in search.input["query"]  # the previous turn's subject, not "same teaching"
    assert "DN 22:18.1" in _prompt_text(llm, 2)
    assert answer.status == "answered" and answer.citations[0].sutta_id == "DN 22"


async def test_an_abstention_does_not_poison_the_next_turn(base, tmp_path):
    where = "Thought: The setting says it.\nAnswer: The Buddha was staying near Gayā, at Gayā Head [SN 35.28:1.1]."
    saw = ("Thought: I can answer.\nAnswer: Even if bandits were to sever you limb from limb with a two-handled saw, "
           "a malevolent thought would not follow the instructions [MN 21:20.1].")
    scholar, llm = scholar_for(base, [BURNING, FOLLOW, where, FOLLOW, saw, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask(FIRE, session_id="s")
    declined = await scholar.aask("What does the Heart Sutra say about emptiness being form?", session_id="s")
    assert declined.status == "abstained" and len(llm.prompts) == 2  # declined without the model

    # a pronoun after the abstention leans on the last *answered* turn
    answer = await scholar.aask("Where was it taught?", session_id="s")
    assert answer.resolution.scope == ["SN 35.28"] and answer.resolution.continues == FIRE
    assert answer.status == "answered"
    assert "Heart Sutra" not in _prompt_text(llm, 2)  # the declined exchange is not in the model's history

    # and in a conversation that only declined so far, a new question is taken on its own
    other, llm2 = scholar_for(base, [saw, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await other.aask("What does the Heart Sutra say about emptiness being form?", session_id="t")
    fresh = await other.aask("Where is the simile of the two-handled saw in these texts?", session_id="t")
    assert fresh.resolution.kind == "new" and "no earlier turn was answered" in fresh.resolution.reason
    assert fresh.status == "answered" and fresh.citations[0].sutta_id == "MN 21"
    assert not any("Heart Sutra" in (m.content or "") for m in llm2.prompts[0])


async def test_the_resolution_is_the_first_step_streamed(base, tmp_path):
    from chat.pipeline.answer import StepEvent

    where = "Thought: The setting says it.\nAnswer: He was staying near Gayā, at Gayā Head [SN 35.28:1.1]."
    scholar, _ = scholar_for(base, [BURNING, FOLLOW, where, FOLLOW], memory_db=tmp_path / "m.sqlite")
    first = await scholar.aask(FIRE, session_id="s")
    assert first.resolution.kind == "first" and "resolve_question" not in _tools(first)
    steps = [e async for e in scholar.astream("Where was it taught?", session_id="s") if isinstance(e, StepEvent)]
    assert steps[0].step.tool == "resolve_question" and steps[1].step.tool == "resolve_question"
    summary = steps[1].step.output_summary
    assert summary.startswith("Follow-up: it points back") and summary.endswith("scope: SN 35.28")


# ---- the dialogue eval -------------------------------------------------------------------------------------
def test_eval_dialogues_scores_turns_follow_ups_and_whole_dialogues(base, tmp_path):
    from chat.evals import dialogues
    from chat.runtime import Runtime

    where = "Thought: The setting says it.\nAnswer: He was staying near Gayā, at Gayā Head [SN 35.28:1.1]."
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"id": "fire", "turns": [{"q": FIRE, "cite_any": ["SN 35.28"], "words_any": ["burning"]},
                                 {"q": "Where was he staying?", "cite_any": ["SN 35.28"], "words_any": ["Gaya"]}]},
        {"id": "heart", "turns": [{"q": "What does the Heart Sutra say about emptiness being form?",
                                   "abstain": True},
                                  {"q": "Where was he staying?", "cite_any": ["SN 35.28"],
                                   "words_any": ["Gaya"], "not_cite": ["MN 10"]}]},
    ]))
    # the second dialogue runs in a fresh session: its "he" has nothing to lean on, and the model declines
    declined = "Thought: Nothing here says who.\nAnswer: I don't find this in the texts I have."
    scholar, _ = scholar_for(base, [BURNING, FOLLOW, where, FOLLOW, declined], memory_db=tmp_path / "m.sqlite")
    out = tmp_path / "report.json"
    args = argparse.Namespace(dialogues=path, limit=None, ids=None, json_out=out)
    assert dialogues.run(args, scholar.settings, Runtime(scholar.settings, scholar=scholar)) == 0
    report = json.loads(out.read_text())
    assert (report["turns"], report["turn_pass"], report["first_turn_pass"]) == (4, 0.75, 1.0)
    assert (report["follow_up_pass"], report["dialogues_all_pass"]) == (0.5, 0.5)
    for key in ("seconds_median", "first_turn_seconds_median", "follow_up_seconds_median"):
        assert report[key] is not None
    row = report["results"][1]
    assert row["passed"] and row["cited_suttas"] == ["SN 35.28"] and "Gayā Head" in row["answer"]
    assert row["resolution"]["kind"] == "follow_up"
    last = report["results"][3]
    assert not last["passed"] and last["status"] == "abstained" and last["problems"]


# ---- the real thing ----------------------------------------------------------------------------------------
DEV_DIALOGUES = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dialogues-dev.jsonl"


@pytest.mark.slow
def test_embedded_model_keeps_the_thread_of_a_two_turn_dev_dialogue(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from chat.evals.dialogues import score_turn
    from indexing.settings import ScholarSettings

    settings = ScholarSettings(_env_file=None)
    if not (settings.index_dir / "docstore.sqlite").exists() or not (settings.index_dir / "bm25").exists():
        pytest.skip(f"no complete index at {settings.index_dir} (docstore and BM25): run `scholar ingest` first")
    if not DEV_DIALOGUES.exists():
        pytest.skip(f"no dev dialogues at {DEV_DIALOGUES}")
    # the issue's own example: "What is the Anattalakkhana Sutta about?", then "To whom was it taught?"
    dialogue = next(d for d in map(json.loads, DEV_DIALOGUES.read_text(encoding="utf-8").splitlines())
                    if d["id"] == "dd01")
    dialogue["turns"] = dialogue["turns"][:2]
    from chat.pipeline.scholar import Scholar
    from chat.providers.embedded import build_embedded_llm
    from tools.library import Library

    llm = build_embedded_llm(settings)
    settings = settings.model_copy(update={"memory_db": tmp_path / "memory.sqlite"})
    scholar = Scholar(settings, Library.open(settings), llm)
    first, second = (scholar.ask(t["q"], session_id="slow-dialogue") for t in dialogue["turns"])
    assert second.resolution is not None and second.resolution.kind == "follow_up"
    for turn, answer in zip(dialogue["turns"], (first, second), strict=True):
        passed, problems = score_turn(turn, answer)
        assert passed, (turn["q"], problems, answer.answer)


async def test_asked_what_it_is_about_the_text_the_conversation_is_on_is_summarised(base, tmp_path):
    feelings = "Thought: ok\nAnswer: MN 10 speaks of feelings [1]."
    whole = "Thought: ok\nAnswer: MN 10 teaches mindfulness meditation [1]."
    scholar, _ = scholar_for(base, [feelings, FOLLOW, whole, FOLLOW], memory_db=tmp_path / "m.sqlite")
    first = await scholar.aask("What does MN 10 say about feelings?", session_id="s")
    assert "SuttaCentral's summary" not in first.answer
    answer = await scholar.aask("What is it about?", session_id="s")
    assert answer.resolution.scope == ["MN 10"]
    assert answer.answer.startswith("SuttaCentral's summary of MN 10, Mindfulness Meditation: “The four kinds")


async def test_asked_what_it_says_the_lines_quoted_are_the_text_in_scope_when_it_holds_a_main_word(base, tmp_path):
    # "craving" and "future lives" are not in SN 35.28, so the library is searched beside it, and DN 22:18.1 holds
    # more of the question's words; but the reader asks what *it* says, and SN 35.28 speaks of greed
    greed = "Thought: I can answer.\nAnswer: Everything is burning with the fire of greed [SN 35.28:2.1]."
    scholar, _ = scholar_for(base, [BURNING, FOLLOW, greed, FOLLOW], memory_db=tmp_path / "m.sqlite")
    await scholar.aask(FIRE, session_id="s")
    answer = await scholar.aask("What does it say about greed and the craving for future lives?", session_id="s")

    assert answer.resolution.scope == ["SN 35.28"] and "searched too" in answer.resolution.reason
    assert _tools(answer) == ["resolve_question", "lookup_sutta", "search_passages"]
    quoted = {c for s in answer.sentences if s.origin == "quote" for c in s.citations}
    assert quoted and all(c.startswith("SN 35.28") for c in quoted), quoted



def test_a_word_common_across_the_library_is_no_sign_that_a_follow_up_moved_on():
    from types import SimpleNamespace

    from chat.pipeline.conversation import _outside

    counts = {"make": 1490, "raft": 11}
    bm25 = SimpleNamespace(document_frequency=lambda w: (counts.get(w, 0), 17576))
    library = SimpleNamespace(bm25=bm25, evidence=SimpleNamespace(sutta=lambda _: None))
    # "Why was it made?" after a rule asks about that rule; "What about a raft?" may be another text's
    assert _outside(library, [], ["make", "raft"]) == ["raft"]
    # over a tiny index every word is in many of its passages: the share says nothing there
    tiny = SimpleNamespace(bm25=SimpleNamespace(document_frequency=lambda w: (3, 12)), evidence=library.evidence)
    assert _outside(tiny, [], ["make", "raft"]) == ["make", "raft"]
