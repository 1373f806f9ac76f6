"""The plan made from the question's analysis (over the tiny tools index) and the previous turn."""

import pytest

from chat.pipeline.conversation import choose_mode
from chat.pipeline.conversation import make_plan as plan_from
from chat.pipeline.plan import PreviousTurn
from tools.search.query import analyse_query

from helpers_tools import open_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


@pytest.fixture
def make_plan(lib):
    def make(question: str, **kwargs):
        return plan_from(analyse_query(lib, question), **kwargs)
    return make


def test_sutta_id_in_question_plans_a_lookup_of_its_documents(make_plan):
    plan = make_plan("What does MN 21 say about the saw?")
    assert plan.sutta_ids == ["MN 21"]
    assert [a.tool for a in plan.steps] == ["lookup_sutta"]
    assert plan.steps[0].kwargs["sutta_id"] == "MN 21"
    assert "MN 21" not in plan.steps[0].kwargs["query"]
    assert plan.steps[0].sutta.doc_ids == ["mn21"]


def test_asked_who_or_where_of_a_named_text_its_opening_competes_with_its_other_lines(make_plan):
    # "Where was the Buddha staying when he taught …?": where the texts say so is the opening, which a lookup
    # otherwise leaves to the lines matching the question's other words
    assert make_plan("Where was the Buddha staying when he taught MN 21?").steps[0].setting
    assert make_plan("To whom did the Buddha teach MN 21?").steps[0].setting
    assert not make_plan("What does MN 21 say about the saw?").steps[0].setting


def test_a_sutta_inside_a_range_document_is_looked_up_there(make_plan):
    plan = make_plan("Who should one seek according to SN 12.110?")
    assert plan.steps[0].sutta.doc_ids == ["sn12.104-114"]


def test_an_unknown_sutta_is_planned_with_what_the_index_says(make_plan):
    plan = make_plan("What does MN 175 teach?")
    named = plan.steps[0].sutta
    assert named.doc_ids == [] and named.error.startswith("There is no MN 175")


def test_a_nickname_plans_a_lookup_of_its_sutta(make_plan):
    plan = make_plan("What is burning in the Fire Sermon?")
    assert plan.aliases == {"the fire sermon": "SN 35.28"}
    assert plan.steps[0].tool == "lookup_sutta" and plan.steps[0].kwargs["sutta_id"] == "SN 35.28"
    assert plan.steps[0].sutta.doc_ids == ["sn35.28"]
    assert "Fire Sermon" not in plan.search_query
    assert "SN 35.28" in plan.hints()


def test_a_question_that_only_names_a_nickname_looks_for_what_the_nickname_names(make_plan):
    # "the simile of the poisoned arrow": with the nickname taken out nothing is left to find inside the text
    plan = make_plan("What is the simile of the Fire Sermon?")
    assert plan.steps[0].tool == "lookup_sutta" and "fire sermon" in plan.steps[0].kwargs["query"].lower()
    # a question with words of its own looks for those
    assert "fire sermon" not in make_plan("What is burning in the Fire Sermon?").steps[0].kwargs["query"].lower()
    # an ID names no passage: its topic stays as it is
    assert make_plan("What is the simile of SN 35.28?").steps[0].kwargs["query"].lower() == "what is the simile of"


def test_content_question_plans_a_search_with_collection_hint(make_plan):
    plan = make_plan("What does the Majjhima say about anger and a two-handled saw?")
    assert plan.collection == "MN"
    step = plan.steps[0]
    assert step.tool == "search_passages" and step.kwargs["collection"] == "MN"
    assert "k" not in step.kwargs  # the model must not learn to pass k


@pytest.mark.parametrize("question, collection", [
    ("Is there an image of a raft?", None),
    ("What is said in the Numbered Discourses about a raft?", "AN"),
    ("What do the Majjhima and the Digha say about a raft?", None),  # two hints: no restriction
    ("Does a raft appear in both the Long and the Middle Discourses?", None),
    ("What does the Dhammapada say about a raft?", "KN"),
])
def test_one_collection_named_in_words_restricts_the_search(make_plan, question, collection):
    assert make_plan(question).collection == collection


def test_mode_detection_and_override():
    assert choose_mode("Write study notes on the four kinds of mindfulness meditation") == "notes"
    assert choose_mode("What is the simile of the saw?") == "qa"
    assert choose_mode("What is the simile of the saw?", "notes") == "notes"
    assert choose_mode("study notes on jhana", "qa") == "qa"


def test_right_after_that_expands_after_the_passage_cited(make_plan):
    prev = PreviousTurn("What is the simile of the saw?", "…", cited_refs=["MN 21:20.1", "MN 21:20.2"],
                        search_query="simile of the saw")
    plan = make_plan("And what comes right after that?", previous=prev)
    assert plan.follow_up == "next"
    assert plan.steps[0].tool == "expand_context"
    assert plan.steps[0].kwargs == {"ref": "MN 21:20.2", "after": 2, "before": 0}


def test_reading_on_starts_after_the_furthest_line_the_text_was_cited_to(make_plan):
    # the quoted key lines (1.1–3.1) reach past the sentence that cites one of them (1.1)
    prev = PreviousTurn("What does MN 10 say?", "…", cited_refs=["MN 10:1.1–3.1", "MN 10:1.1"])
    assert make_plan("What comes right after that?", previous=prev).steps[0].kwargs["ref"] == "MN 10:1.1–3.1"
    assert make_plan("What comes before that?", previous=prev).steps[0].kwargs["ref"] == "MN 10:1.1–3.1"
    # only the main text counts, the one the answer cited first (its key lines): a text cited after it, in passing,
    # is not where the reader is
    prev = PreviousTurn("…", "…", cited_refs=["Dhp 183:1–4", "Dhp 185:1–6", "Dhp 183:3"])
    assert make_plan("What does the next verse say?", previous=prev).steps[0].kwargs["ref"] == "Dhp 183:1–4"
    # one verse asked for is one passage read on; "what comes after" reads on further
    assert make_plan("What does the next verse say?", previous=prev).steps[0].kwargs["after"] == 1
    assert make_plan("And the verse before that?", previous=prev).steps[0].kwargs["before"] == 1
    assert make_plan("What comes right after that?", previous=prev).steps[0].kwargs["after"] == 2
    prev = PreviousTurn("…", "…", cited_refs=["MN 21:20.5", "MN 10:1.1", "MN 10:2.1", "MN 21:20.3"])
    assert make_plan("What comes right after that?", previous=prev).steps[0].kwargs["ref"] == "MN 21:20.5"


def test_same_in_another_collection_reuses_the_previous_search(make_plan):
    prev = PreviousTurn("What is the origin of suffering?", "…", cited_refs=["SN 56.11:6.1"],
                        search_query="origin of suffering")
    plan = make_plan("Does the Majjhima say the same?", previous=prev)
    assert plan.follow_up == "same"
    step = plan.steps[0]
    assert step.tool == "search_passages"
    assert step.kwargs["query"] == "origin of suffering" and step.kwargs["collection"] == "MN"


def test_no_previous_turn_means_no_follow_up(make_plan):
    plan = make_plan("And what comes right after that?")
    assert plan.follow_up is None
    assert plan.steps[0].tool == "search_passages"


def test_a_new_question_with_its_own_subject_is_not_a_follow_up(make_plan):
    prev = PreviousTurn("What is the simile of the saw?", "…", cited_refs=["MN 21:20.1"], search_query="saw")
    plan = make_plan("What does the Buddha teach about the four noble truths of suffering?", previous=prev)
    assert plan.follow_up is None
