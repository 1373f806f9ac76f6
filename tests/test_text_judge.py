"""The model as the judge of which text a question is about (tools/search/text_judge.py), with a scripted scorer:
the likeliest text comes first when it gains enough over the search's order, a text only the cards found can enter,
a named text is never judged, and a failing model leaves the search as it was."""

from types import SimpleNamespace

import pytest

from chat.evals.retrieval import _modes
from tools.function_tools import CanonTools
from tools.references import asks_which_text
from tools.search.retriever import search
from tools.search.text_judge import PLACE_COST, TextJudge, candidates
from tools.turn import TurnRecorder

from helpers_tools import open_names_library

MIND = "How quickly does the mind change, and is it pliable?"  # AN 1.48 first, by its passages and by its card
# MN 2, SN 22.99, AN 1.47, ... by the passages; SN 22.99 first by the cards: they disagree, and the model judges
SEEING = "Which defilements are given up by seeing?"


class Scorer:
    """Each token of the question at -1, or `gain` nats less in all when the prompt does not hold `prefer`."""

    def __init__(self, prefer: str, gain: float = 10.0, fail: bool = False):
        self.prefer, self.gain, self.fail = prefer, gain, fail
        self.prompts: list[str] = []

    def continuation_logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        if self.fail:
            raise RuntimeError("model gone")
        self.prompts.append(prompt)
        tokens = continuation.split()
        penalty = 0.0 if self.prefer in prompt else self.gain / len(tokens)
        return [(t + " ", -1.0 - penalty) for t in tokens]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_names_library(tmp_path_factory.getbasetemp() / "judge-index")


def _texts(result) -> list[str]:
    return list(dict.fromkeys(p.sutta_id for p in result.passages))


def test_the_search_texts_come_first_then_the_cards_not_already_there():
    docs, places = candidates(["a", "b", "c", "d"], ["c", "x", "y", "z"])
    assert docs == ["a", "b", "c", "x"] and places == [0, 1, 2, 3]  # the cards' first two, less those read


def test_the_likeliest_text_comes_first_and_the_rest_keep_their_order(lib):
    plain = _texts(search(lib, SEEING, k=5, mode="hybrid"))
    assert plain[:3] == ["MN 2", "SN 22.99", "AN 1.47"]
    scorer = Scorer("A Leash")  # SN 22.99's title: the model reads it in SN 22.99's prompt alone
    judged = search(lib, SEEING, k=5, mode="hybrid", judge=TextJudge(scorer))
    assert _texts(judged) == ["SN 22.99", "MN 2", *plain[2:]]
    assert "judge" in judged.search_types_used and judged.judged_first == "sn22.99"
    assert judged.answered_by().endswith("the model judged which text the question is about")
    assert all("judge" in p.scores for p in judged.passages if p.sutta_id in plain[:3])
    assert len(scorer.prompts) == 3  # the search's first three: the cards' first two are among them
    assert any("“" in prompt and SEEING not in prompt for prompt in scorer.prompts)  # lines shown, question scored


def test_a_gain_smaller_than_the_places_it_climbs_does_not_move_it(lib):
    plain = _texts(search(lib, SEEING, k=5, mode="hybrid"))
    judged = search(lib, SEEING, k=5, mode="hybrid", judge=TextJudge(Scorer("A Leash", PLACE_COST - 0.5)))
    assert _texts(judged) == plain and not judged.judged_first


def test_when_the_passages_and_the_cards_agree_the_model_is_not_asked(lib):
    scorer = Scorer("All the Defilements")
    judged = search(lib, "Which text says the mind is quick to change?", k=5, mode="hybrid", judge=TextJudge(scorer))
    assert not scorer.prompts and _texts(judged)[0] == "AN 1.48"


def test_a_question_about_what_a_text_says_is_not_judged(lib):
    question = "What defilements are given up by seeing?"  # SEEING, asked about the lines, not for a text
    assert not asks_which_text(question) and asks_which_text(SEEING)
    scorer = Scorer("A Leash")
    judged = search(lib, question, k=5, mode="hybrid", judge=TextJudge(scorer))
    assert not scorer.prompts and "judge" not in judged.search_types_used


@pytest.mark.parametrize("question,which", [
    ("Which sutta has the Buddha scolding monks for chattering about kings?", True),
    ("Where does the Buddha say that ignorance comes first?", True),
    ("In which discourse does Sāriputta roar his lion's roar?", True),
    ("Which monk's verse tells the rain god to go ahead and rain?", True),
    ("What verse says the mind is the forerunner?", True),
    ("Why did the Buddha hesitate to teach?", False),
    ("Who were the Kalamas?", False),
    ("What does the Buddha say a mendicant should do when a sensual thought arises?", False),
])
def test_questions_that_ask_which_text(question, which):
    assert asks_which_text(question) is which


def test_a_text_only_the_cards_found_enters_with_its_best_passage(lib):
    question = "Which discourse has a dog tied to a post, and giving strength?"
    plain = search(lib, question, k=1, mode="hybrid")
    assert _texts(plain) == ["SN 1.42"]
    judged = search(lib, question, k=1, mode="hybrid", judge=TextJudge(Scorer("A Leash")))
    assert _texts(judged) == ["SN 22.99"]  # its card's blurb holds the dog; k stays 1
    assert judged.passages[0].text.startswith("There comes a time")


def test_a_named_text_is_not_judged(lib):
    scorer = Scorer("A Leash")
    result = search(lib, "In SN 1.42, giving what gives strength?", k=3, mode="hybrid", judge=TextJudge(scorer))
    assert _texts(result)[0] == "SN 1.42" and not scorer.prompts
    assert "judge" not in result.search_types_used


def test_a_failing_model_leaves_the_search_order(lib):
    plain = _texts(search(lib, SEEING, k=5, mode="hybrid"))
    judged = search(lib, SEEING, k=5, mode="hybrid", judge=TextJudge(Scorer("", fail=True)))
    assert _texts(judged) == plain and "judge" not in judged.search_types_used


def test_the_model_judges_only_the_turns_first_search(lib):
    scorer = Scorer("A Leash")
    canon = CanonTools(lib, TurnRecorder(), llm=SimpleNamespace(), judge=TextJudge(scorer))
    first = canon.search_passages(SEEING, k=5)
    asked = len(scorer.prompts)
    canon.search_passages(SEEING, k=5)
    assert asked and len(scorer.prompts) == asked
    assert not first.error and canon.recorder.evidence[0].sutta_id == "SN 22.99"  # the judged text's lines lead


def test_all_modes_of_the_retrieval_eval_are_the_search_alone():
    assert "hybrid+judge" not in _modes("all") and _modes("hybrid+judge") == ["hybrid+judge"]


def test_the_judged_texts_lines_lead_even_when_its_words_found_none(lib):
    canon = CanonTools(lib, TurnRecorder())
    others = canon._windows_in(["an1.48", "an1.47"], MIND, limit=2)
    assert [w.sutta_id for w in others] == ["AN 1.48", "AN 1.47"]
    led = canon._lead_with("mn2", MIND, others)
    assert [w.sutta_id for w in led] == ["MN 2", "AN 1.48"]  # as many windows as before
    assert [w.sutta_id for w in canon._lead_with("an1.47", MIND, others)] == ["AN 1.47", "AN 1.48"]


# --- the real model -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_real_model_finds_the_text_a_readers_question_describes(lib):
    from chat.providers import embedded, model_files
    from indexing.settings import ScholarSettings

    real = ScholarSettings(_env_file=None)
    model_files.install_model(real.model_dir)
    judge = TextJudge(embedded.build_embedded_llm(real.model_copy(update={"llm_context_window": 2048})))
    texts = ["sn1.42", "sn15.8", "an1.48"]  # giving, the Ganges' sand, the mind that changes quickly
    # in a reader's words, not the lines': the third text must win against the two places it climbs
    verdict = judge.judge(lib, "Is there anything that shifts faster than our thoughts?", texts, [0, 1, 2])
    assert verdict is not None and verdict.winner == "an1.48", verdict
    verdict = judge.judge(lib, "What should one give to give strength and beauty?", texts, [0, 1, 2])
    assert verdict is not None and verdict.winner == "sn1.42" and not verdict.moved, verdict


def test_a_text_found_by_its_summary_is_not_declined_for_its_lines_words(lib, tmp_path):
    from chat.pipeline.scholar import Scholar
    from chat.providers.rule_based import rule_based_reply
    from chat.providers.scripted import ScriptedLLM
    from tools.library import Library

    # "dog" and "post" are in SN 22.99's blurb alone; its lines speak of the ocean drying up. Words alone decide
    # (no dense side: the fake vectors would find anything close in meaning)
    words_only = Library.open(lib.settings, embed_model=lib.embed_model, dense=False)
    settings = lib.settings.model_copy(update={"memory_db": tmp_path / "memory.sqlite"})
    scholar = Scholar(settings, words_only, ScriptedLLM(rule_based_reply, model_name="rule-based"))
    answer = scholar.ask("Which discourse has a dog tied to a post?")
    assert answer.status == "answered" and any(c.sutta_id == "SN 22.99" for c in answer.citations)
