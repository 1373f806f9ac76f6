"""Scholar behaviour around the agent: abstention, modes, follow-ups, the structured answer, the sync API."""

from pathlib import Path

import pytest

from chat.pipeline.answer import Answer
from chat.pipeline.followups import fallback_followups, parse_followups

from scholar_helpers import scholar_for

FOLLOW = "What is the all?\nWhy is the eye burning?"


async def test_unknown_sutta_number_abstains_without_the_model(base):
    scholar, llm = scholar_for(base, [])  # any model call would fail the test
    answer = await scholar.aask("What does MN 175 teach about the jhānas?")
    assert answer.status == "abstained"
    assert answer.answer.startswith("I don't find this in the texts I have")
    assert "MN 175" in answer.answer and not answer.citations
    assert llm.prompts == []


async def test_question_the_corpus_does_not_cover_abstains(base):
    scholar, llm = scholar_for(base, [])
    answer = await scholar.aask("What does the Heart Sutra say about emptiness being form?")
    assert answer.status == "abstained" and llm.prompts == []
    assert answer.trace and answer.trace[0].tool == "search_passages"


async def test_model_declining_is_an_abstention(base):
    declined = "Thought: The passages do not cover it.\nAnswer: I don't find this in the texts I have."
    scholar, _ = scholar_for(base, [declined])
    answer = await scholar.aask("What does the Fire Sermon say about the ocean tides?")
    assert answer.status == "abstained" and answer.follow_ups == []
    # the closest passages are offered for the reader to judge, never as an answer
    assert answer.answer.startswith("I don't find this in the texts I have.")
    assert "closest passages" in answer.answer and {c.sutta_id for c in answer.citations} == {"SN 35.28"}


async def test_study_notes_mode_retrieves_more_and_allows_longer_output(base):
    notes = ("Thought: I can write the notes.\nAnswer: # Mindfulness meditation\n## The four\n"
             "The four kinds of mindfulness meditation are the path to convergence [MN 10:2.1].\n"
             "## Gaps\nMissing from the retrieved texts: the commentarial lists.")
    scholar, llm = scholar_for(base, [notes, FOLLOW])
    answer = await scholar.aask("Write study notes on the four kinds of mindfulness meditation")
    assert answer.mode == "notes"
    assert answer.trace[0].input["k"] == 12
    assert "Write study notes in Markdown" in llm.prompts[0][0].content
    assert answer.citations and answer.citations[0].sutta_id == "MN 10"


async def test_follow_ups_fall_back_when_the_model_reply_is_unusable(base):
    reply = "Thought: ok\nAnswer: The eye is burning [SN 35.28:1.4]."
    scholar, _ = scholar_for(base, [reply, "Sure! Here you go."])
    answer = await scholar.aask("What does the Fire Sermon say is burning?")
    assert 2 <= len(answer.follow_ups) <= 3
    assert any("SN 35.28" in q for q in answer.follow_ups)


async def test_the_checked_answer_comes_before_the_model_is_asked_for_follow_ups(base):
    from chat.pipeline.answer import AnswerEvent, FinalEvent

    reply = "Thought: ok\nAnswer: The eye is burning [SN 35.28:1.4]."
    scholar, llm = scholar_for(base, [reply, FOLLOW])
    seen: list[tuple[str, int]] = []  # each answer-bearing event, with how many model calls were made by then
    async for event in scholar.astream("What does the Fire Sermon say is burning?"):
        if isinstance(event, (AnswerEvent, FinalEvent)):
            seen.append((event.kind, len(llm.prompts)))
            last = event.answer
            if isinstance(event, AnswerEvent):
                checked = event.answer
    assert seen == [("answer", 1), ("final", 2)]
    assert checked.answer == last.answer and checked.follow_ups == [] and checked.citations == last.citations
    assert last.follow_ups == ["What is the all?", "Why is the eye burning?"]
    assert 0 < checked.timings["answer"] == last.timings["answer"] <= last.timings["total"]
    assert "followups" in last.timings and "followups" not in checked.timings


async def test_a_declined_answer_comes_whole_without_follow_ups(base):
    from chat.pipeline.answer import AnswerEvent, FinalEvent

    scholar, llm = scholar_for(base, [])
    kinds = [e.kind async for e in scholar.astream("What does MN 175 teach about the jhānas?")
             if isinstance(e, (AnswerEvent, FinalEvent))]
    assert kinds == ["answer", "final"] and llm.prompts == []


def test_parse_followups_strips_numbering_and_keeps_questions():
    text = "1. What is the all?\n- Why does it burn?\nNot a question\n3) What are the fires?\n4. Extra?"
    assert parse_followups(text, 3) == ["What is the all?", "Why does it burn?", "What are the fires?"]


def test_parse_followups_drops_labels_and_the_readers_own_question():
    text = ("Question: What is the simile of the poisoned arrow?\nQuestion 2. Who was Māluṅkyaputta?\n"
            "Answer: A monk.\nAnswer 3. What did he want answered?")
    assert parse_followups(text, 3, asked="What is the simile of the poisoned arrow?") == [
        "Who was Māluṅkyaputta?", "What did he want answered?"]


async def test_follow_ups_are_held_to_a_questions_only_grammar_where_the_provider_has_one():
    from chat.pipeline.followups import generate_followups
    from chat.providers.scripted import ScriptedLLM

    grammars: list[str | None] = []

    class GrammarLLM(ScriptedLLM):
        def with_grammar(self, grammar_fn):
            grammars.append(grammar_fn())
            return self

    llm = GrammarLLM(["What is the all?\nWhy is the eye burning?\nWhat are the three fires?"])
    got, source = await generate_followups(llm, "What burns?", "The eye is burning.", [], count=3)
    assert source == "model" and len(got) == 3
    from llama_cpp import LlamaGrammar

    assert len(grammars) == 1 and "question ::=" in grammars[0]
    LlamaGrammar.from_string(grammars[0], verbose=False)  # llama.cpp accepts it


async def test_one_usable_follow_up_of_the_models_is_kept_and_the_rest_come_from_the_texts():
    from chat.pipeline.followups import generate_followups
    from chat.providers.scripted import ScriptedLLM

    same = "What does AN 1.51 say about the mind?"
    llm = ScriptedLLM(["\n".join([same] * 3)])
    got, source = await generate_followups(llm, "Is the mind radiant?", "The mind is radiant.", [], count=3)
    assert got[0] == same and len(got) == 3 and len(set(got)) == 3 and source == "model and fallback"
    assert got[1:] == fallback_followups("Is the mind radiant?", [], 3)[:2]


def test_fallback_followups_need_no_citations():
    assert 2 <= len(fallback_followups("What is mindfulness?", [])) <= 3


def test_a_fallback_followup_names_the_readers_word_as_written_never_a_token():
    # the BM25 token of "Aṅgulimāla’s" is "angulimala", of "chasing" "chas": a reader sees neither
    got = fallback_followups("Why did Aṅgulimāla’s pursuit of the Buddha end?", [], 5)
    term = [q for q in got if "come up" in q]
    assert term == ["Where else in the discourses does “Aṅgulimāla” come up?"], got


def test_sync_ask_returns_a_complete_answer_object(base):
    reply = "Thought: ok\nAnswer: The eye is burning [SN 35.28:1.4]."
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    answer = scholar.ask("What does the Fire Sermon say is burning?")
    assert isinstance(answer, Answer)
    data = answer.model_dump()
    for key in ("answer", "citations", "unsupported_claims", "follow_ups", "status", "confidence", "timings",
                "trace", "search_types_used"):
        assert key in data
    assert {"plan", "retrieve", "agent", "verify", "total", "first_token"} <= set(answer.timings)
    assert answer.trace[0].duration_ms >= 0 and answer.trace[0].output_summary
    assert "lookup" in answer.search_types_used


# ---- the real thing ------------------------------------------------------------------------------------------
REAL_QUESTIONS = [
    ("What does the Fire Sermon say is burning?", {"SN 35.28"}),
    ("Which discourse compares replacing an unskillful thought with a skillful one to a carpenter knocking out "
     "a large peg with a finer peg?", {"MN 20"}),
]


def _real_scholar(monkeypatch):
    """The Scholar over the configured full index with the embedded model (skipped without an index)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from indexing.settings import ScholarSettings

    settings = ScholarSettings(_env_file=None)
    if not (settings.index_dir / "docstore.sqlite").exists() or not (settings.index_dir / "bm25").exists():
        pytest.skip(f"no complete index at {settings.index_dir} (docstore and BM25): run `scholar ingest` first")
    from chat.pipeline.scholar import Scholar
    from chat.providers.embedded import build_embedded_llm
    from tools.library import Library

    llm = build_embedded_llm(settings)  # `make test` installs the model first: a missing one is a failure here
    settings = settings.model_copy(update={"memory_db": Path("/tmp") / "scholar-slow-test-memory.sqlite"})
    return Scholar(settings, Library.open(settings), llm)


@pytest.mark.slow
@pytest.mark.parametrize("question,gold", REAL_QUESTIONS)
def test_embedded_model_end_to_end_cites_the_gold_sutta(question, gold, monkeypatch):
    answer = _real_scholar(monkeypatch).ask(question)
    assert answer.status == "answered", answer.error
    assert gold & {c.sutta_id for c in answer.citations}, (answer.answer, [c.ref for c in answer.citations])


# natural questions with the facts a correct answer holds (the answers eval's `must` groups: one alternative each)
REAL_FACTS = [
    ("What are the four corrupt deeds a noble disciple gives up, according to the advice to Sigālaka?",
     [["killing"], ["stealing"], ["sexual misconduct"], ["lying"]]),
    ("What does the Fire Sermon say is burning?", [["eye"], ["burning"]]),
]


@pytest.mark.slow
@pytest.mark.parametrize("question,must", REAL_FACTS)
def test_embedded_model_answers_hold_their_key_facts_without_debris(question, must, monkeypatch):
    from chat.evals.answers import _DEBRIS, score_content

    answer = _real_scholar(monkeypatch).ask(question)
    scored = score_content({"must": must, "must_not": []}, answer)
    # correct, and nothing broken left in the text; whether the facts stand in the model's own sentences
    # (`facts_own`) is measured by `scholar eval answers`, not promised here: the 1.5B model's sentences are often
    # removed by the checks, leaving the quoted passages alone
    assert scored["correct"] and not _DEBRIS.search(answer.answer), (scored, answer.answer)


# two natural questions written for this test (in no dev file), with the facts its own sentences must state and a
# gold text it must cite: the model restates the selected lines (chat/pipeline/say.py)
OWN_FACTS = [
    ("What animal does the Buddha liken the mind to in SN 12.61, and what does the animal keep doing?",
     {"SN 12.61"}, [["monkey"], ["branch"]]),
    ("What are the eight worldly conditions that the world revolves around?",
     {"AN 8.5", "AN 8.6"}, [["gain"], ["loss"], ["praise"], ["blame"], ["pleasure"], ["pain"]]),
]


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="issue #23 is open: the model answers one part of a two-part question (SN "
                   "12.61: the monkey, not what it keeps doing, though both parts' lines are chosen and quoted); "
                   "the eight worldly conditions are named since the "
                   "say prompt is told which line sets a list out (docs/evaluation.md); not strict: a run repeats on "
                   "one machine, but llama.cpp's numbers differ with the CPU, so a question can pass on one machine "
                   "and fail on another")
@pytest.mark.parametrize("question,gold,must", OWN_FACTS)
def test_embedded_model_states_the_key_facts_in_its_own_sentences(question, gold, must, monkeypatch):
    from chat.evals.answers import own_text, score_content

    answer = _real_scholar(monkeypatch).ask(question)
    scored = score_content({"must": must, "must_not": []}, answer)
    own = own_text(answer)
    # the facts in the answer's own sentences (origin "model"), not only in the passages it quotes, and correct
    assert scored["correct"] and not scored["missing_own"], (scored, own, answer.answer)
    assert gold & {c.sutta_id for c in answer.citations}, [c.ref for c in answer.citations]
    assert any(s.origin == "model" and s.citations for s in answer.sentences)


def test_ask_cli_streams_text_and_writes_json_and_trace(base, tmp_path, capsys):
    import argparse
    import json

    from chat.cli import ask as ask_cli
    from chat.runtime import Runtime

    reply = "Thought: ok\nAnswer: The eye is burning [SN 35.28:1.4]."
    scholar, _ = scholar_for(base, [reply, FOLLOW, reply, FOLLOW])
    runtime = Runtime(scholar.settings, library=scholar.library, scholar=scholar)
    args = argparse.Namespace(question="What does the Fire Sermon say is burning?", json=False, trace=None,
                              session=None, mode="auto")
    assert ask_cli.run_ask(args, runtime) == 0
    out = capsys.readouterr().out
    assert out.startswith("The eye is burning [SN 35.28:1.4].\n\n> “") and "Thought" not in out
    assert "You might ask next:" in out

    trace = tmp_path / "trace.json"
    args = argparse.Namespace(question="What does the Fire Sermon say is burning?", json=True, trace=trace,
                              session=None, mode="auto")
    assert ask_cli.run_ask(args, runtime) == 0
    data = json.loads(capsys.readouterr().out)
    refs = [c["ref"] for c in data["citations"]]
    assert data["status"] == "answered" and refs == ["SN 35.28:1.4", "SN 35.28:1.3–2.1"]
    # any client can tell the answer's own words from the passages it quotes
    assert [(x["origin"], x["citations"]) for x in data["sentences"]] == [("model", ["SN 35.28:1.4"]),
                                                                          ("quote", ["SN 35.28:1.3–2.1"])]
    assert data["sentences"][0]["text"] == "The eye is burning." and data["model_calls"]
    assert json.loads(trace.read_text())[0]["tool"] == "lookup_sutta"


def test_eval_answers_scores_gold_abstention_and_precision(base, tmp_path, capsys):
    import argparse
    import json

    from chat.evals import answers
    from chat.runtime import Runtime

    qs = tmp_path / "q.jsonl"
    qs.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "question": "What does the Fire Sermon say is burning?", "gold": ["SN 35.28"], "kind": "by_alias"},
        {"id": "b", "question": "What does the Heart Sutra say about emptiness being form?", "gold": [],
         "kind": "unanswerable"},
    ]))
    reply = "Thought: ok\nAnswer: The eye is burning [SN 35.28:1.4]."
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    out = tmp_path / "report.json"
    args = argparse.Namespace(questions=qs, limit=None, ids=None, json_out=out)
    assert answers.run(args, scholar.settings, Runtime(scholar.settings, scholar=scholar)) == 0
    report = json.loads(out.read_text())
    assert report["cited_gold"] == 1.0 and report["abstained_correctly"] == 1.0
    assert report["citation_precision"] == 1.0
    for key in ("answer_seconds_p50", "answer_seconds_p95", "first_token_seconds_p50"):
        assert report[key] is not None
    assert "burning" in report["results"][0]["answer"]
    assert [r["id"] for r in answers.load_questions(qs, ids="b, x")] == ["b"]


def test_eval_answers_scores_what_the_answer_says_when_the_file_has_key_facts(base, tmp_path):
    import argparse
    import json

    from chat.evals import answers
    from chat.runtime import Runtime

    qs = tmp_path / "facts.jsonl"
    qs.write_text("\n".join(json.dumps(r) for r in [
        {"id": "right", "question": "What does the Fire Sermon say is burning?", "gold": ["SN 35.28"],
         "must": [["eye"], ["greed", "lust"]], "must_not": []},
        {"id": "wrong", "question": "What does the Fire Sermon say is burning?", "gold": ["SN 35.28"],
         "must": [["eye"], ["ocean"]], "must_not": [["Gaya"]]},
    ]))
    reply = "Thought: ok\nAnswer: The eye is burning with greed [SN 35.28:1.3–2.1]."
    scholar, _ = scholar_for(base, [reply, FOLLOW, reply, FOLLOW])
    out = tmp_path / "report.json"
    args = argparse.Namespace(questions=qs, limit=None, ids=None, json_out=out)
    assert answers.run(args, scholar.settings, Runtime(scholar.settings, scholar=scholar)) == 0
    report = json.loads(out.read_text())
    right, wrong = report["results"]
    assert (right["facts"], right["correct"], right["clean"]) == (1.0, True, True)
    assert wrong["facts"] == 0.5 and not wrong["correct"] and wrong["missing_facts"] == [["ocean"]]
    assert (report["facts"], report["correct"], report["clean"]) == (0.75, 0.5, 1.0)
    for key in ("cited_gold", "answer_seconds_p50", "first_token_seconds_p50"):
        assert key in report


async def test_a_name_no_passage_holds_is_declined_without_the_model(base):
    scholar, llm = scholar_for(base, [])
    answer = await scholar.aask("What did Zhaozhou answer when asked whether a dog has the nature of a saw?")
    assert answer.status == "abstained" and llm.prompts == []
    assert answer.answer.startswith("I don't find this in the texts I have. The texts I have never mention Zhaozhou.")


def test_a_readers_spelling_of_a_name_the_texts_hold_is_not_unknown(base):
    from chat.pipeline.scholar import _unknown_names

    from helpers_tools import open_library

    library = open_library(base)
    assert _unknown_names("Why did the Buddha stay near Gaya Head?", library) == []  # without the diacritic
    assert _unknown_names("Why did the Buddha stay near Gayaa Head?", library) == []  # spelt otherwise
    assert _unknown_names("What is the first text of the Saṁyutta Nikāya?", library) == []  # a collection's name
    assert _unknown_names("What did Zhaozhou say at Gayā?", library) == ["Zhaozhou"]


async def test_a_subject_the_evidence_names_is_answered_though_the_other_words_differ(base):
    reply = "Thought: ok\nAnswer: The Buddha was staying near Gayā, at Gayā Head [1]."
    scholar, llm = scholar_for(base, [reply, FOLLOW])
    # most words of the question are not the text's, but the place it asks about is
    answer = await scholar.aask("What sojourning occurred at Gayā, and which listeners were gathered?")
    assert answer.status == "answered" and llm.prompts, answer.answer


async def test_a_text_outside_the_library_is_declined_with_the_closest_passages_offered(base):
    scholar, llm = scholar_for(base, [])
    answer = await scholar.aask("What does the Lotus Sutra say about the burning house and the eye?")
    assert answer.status == "abstained" and llm.prompts == []  # never answered from the closest passages
    assert "The Lotus Sutra is not among the texts I have" in answer.answer
    assert answer.citations and "closest passages" in answer.answer


def test_a_key_fact_written_with_a_straight_apostrophe_is_found_behind_a_curly_one():
    from chat.evals.answers import score_content
    from chat.pipeline.answer import Answer

    row = {"must": [["doesn't apply"]], "must_not": [["it’s eternal"]]}
    said = score_content(row, Answer(answer="“It doesn’t apply, Mister Gotama.” [MN 72:19.18] It's eternal.",
                                     status="answered"))
    assert said["facts"] == 1.0 and said["said_wrong"] == ["it’s eternal"]


async def test_asked_what_a_text_is_about_the_answer_opens_with_suttacentrals_summary(base):
    from chat.pipeline.answer import TokenEvent

    reply = "Thought: ok\nAnswer: MN 10 teaches mindfulness meditation in the land of the Kurus [1]."
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    events = [ev async for ev in scholar.astream("What is MN 10 about?")]
    answer = events[-1].answer
    assert answer.status == "answered"
    assert answer.answer.startswith("SuttaCentral's summary of MN 10, Mindfulness Meditation: “The four kinds of "
                                    "mindfulness meditation, taught in detail.” [MN 10]\n\n")
    # SuttaCentral's words, quoted and attributed: never the model's own sentence
    assert answer.sentences[0].origin == "quote" and answer.sentences[0].citations == ["MN 10"]
    # its reference is a citation (a chip in the chat), whose excerpt is what the sentence quotes
    summary = next(c for c in answer.citations if c.ref == "MN 10")
    assert summary.excerpt.startswith("The four kinds of mindfulness meditation")
    # streamed before the model writes, and the stream is the answer: nothing shown is taken back
    tokens = [ev.text for ev in events if isinstance(ev, TokenEvent)]
    assert tokens[0].startswith("SuttaCentral's summary of MN 10") and "".join(tokens) == answer.answer


async def test_a_question_about_something_in_a_text_gets_no_summary(base):
    reply = "Thought: ok\nAnswer: MN 10 was taught in the land of the Kurus [1]."
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    answer = await scholar.aask("Where was MN 10 taught?")
    assert "SuttaCentral's summary" not in answer.answer


@pytest.mark.parametrize(("question", "overview"), [
    ("What is the Anattalakkhana Sutta about?", True), ("Summarize MN 21", True), ("What does DN 31 teach?", True),
    ("What is the Metta Sutta?", True), ("What is it about?", True),
    ("What does MN 21 say about anger?", False), ("What does the Fire Sermon say is burning?", False),
    ("What is the middle way according to the first sermon?", False), ("What does the next verse say?", False),
])
def test_a_question_about_a_text_as_a_whole_is_told_from_one_about_something_in_it(question, overview):
    from tools.search.shapes import asks_overview

    assert asks_overview(question) is overview
