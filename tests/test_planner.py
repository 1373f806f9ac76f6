from chat.pipeline.planner import PreviousTurn, choose_mode, collection_hint, make_plan


def test_sutta_id_in_question_plans_a_lookup():
    plan = make_plan("What does MN 21 say about the saw?")
    assert plan.sutta_ids == ["MN 21"]
    assert [a.tool for a in plan.actions] == ["lookup_sutta"]
    assert plan.actions[0].kwargs["sutta_id"] == "MN 21"
    assert "MN 21" not in plan.actions[0].kwargs["query"]


def test_alias_found_by_the_finder_plans_a_lookup_of_its_sutta():
    plan = make_plan("What is burning in the Fire Sermon?", find_aliases=lambda q: {"Fire Sermon": "SN 35.28"})
    assert plan.aliases == {"Fire Sermon": "SN 35.28"}
    assert plan.actions[0].tool == "lookup_sutta" and plan.actions[0].kwargs["sutta_id"] == "SN 35.28"
    assert "Fire Sermon" not in plan.search_query
    assert "SN 35.28" in plan.hints()


def test_content_question_plans_a_search_with_collection_hint():
    plan = make_plan("What does the Majjhima say about anger and the simile of the saw?")
    assert plan.collection == "MN"
    action = plan.actions[0]
    assert action.tool == "search_passages" and action.kwargs["collection"] == "MN"
    assert "k" not in action.kwargs  # the model must not learn to pass k


def test_the_article_an_is_not_a_collection_hint():
    assert collection_hint("Is there an image of a raft?") is None
    assert collection_hint("in the Numbered Discourses") == "AN"
    assert collection_hint("in the Majjhima and the Digha") is None  # two hints: no restriction
    assert collection_hint("appears in both the Long and the Middle Discourses") is None
    assert collection_hint("in the Dhammapada") == "KN"


def test_mode_detection_and_override():
    assert choose_mode("Write study notes on the four kinds of mindfulness meditation") == "notes"
    assert choose_mode("What is the simile of the saw?") == "qa"
    assert choose_mode("What is the simile of the saw?", "notes") == "notes"
    assert choose_mode("study notes on jhana", "qa") == "qa"


def test_right_after_that_expands_after_the_last_cited_passage():
    prev = PreviousTurn("What is the simile of the saw?", "…", cited_refs=["MN 21:20.1", "MN 21:20.2"],
                        search_query="simile of the saw")
    plan = make_plan("And what comes right after that?", previous=prev)
    assert plan.follow_up == "next"
    assert plan.actions[0].tool == "expand_context"
    assert plan.actions[0].kwargs == {"ref": "MN 21:20.2", "after": 2, "before": 0}


def test_same_in_another_collection_reuses_the_previous_search():
    prev = PreviousTurn("What is the origin of suffering?", "…", cited_refs=["SN 56.11:6.1"],
                        search_query="origin of suffering")
    plan = make_plan("Does the Majjhima say the same?", previous=prev)
    assert plan.follow_up == "same"
    action = plan.actions[0]
    assert action.tool == "search_passages"
    assert action.kwargs["query"] == "origin of suffering" and action.kwargs["collection"] == "MN"


def test_no_previous_turn_means_no_follow_up():
    plan = make_plan("And what comes right after that?")
    assert plan.follow_up is None
    assert plan.actions[0].tool == "search_passages"


def test_a_new_question_with_its_own_subject_is_not_a_follow_up():
    prev = PreviousTurn("What is the simile of the saw?", "…", cited_refs=["MN 21:20.1"], search_query="saw")
    plan = make_plan("What does the Buddha teach about the four noble truths of suffering?", previous=prev)
    assert plan.follow_up is None
