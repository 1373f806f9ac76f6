"""Conversation memory: persisted in SQLite, read by the planner, surviving a new Scholar on the same file."""



from scholar_helpers import scholar_for, session_memory

FIRST = ("Thought: I can answer.\nAnswer: The eye and sights are burning [SN 35.28:1.4].")  # not a copy of its line
NEXT = ("Thought: I can answer.\nAnswer: Next it says they burn with the fires of greed, hate and delusion "
        "[1].")
FOLLOW = "What is the all?\nWhy is the eye burning?"


async def test_memory_round_trip(tmp_path):
    mem = session_memory(tmp_path / "m.sqlite", "s1")
    assert await mem.previous_turn() is None
    await mem.add_turn("Q1", "A1 [MN 21:20.1]", cited_refs=["MN 21:20.1"], search_query="saw", status="answered")
    again = session_memory(tmp_path / "m.sqlite", "s1")
    prev = await again.previous_turn()
    assert (prev.question, prev.cited_refs, prev.search_query) == ("Q1", ["MN 21:20.1"], "saw")
    assert await session_memory(tmp_path / "m.sqlite", "other").previous_turn() is None


async def test_recap_is_short_and_covers_the_last_answered_turns(tmp_path):
    mem = session_memory(tmp_path / "m.sqlite", "s1")
    for i in range(4):
        await mem.add_turn(f"Q{i}", "long answer " * 200, cited_refs=["MN 1:1.1"], search_query="",
                           status="answered", said="long answer " * 200, cited_suttas=["MN 1"])
    recap = await mem.recap()
    assert "Q2" in recap and "Q3" in recap and "Q1" not in recap
    assert len(recap) < 800


async def test_recap_tells_what_an_answer_said_without_references_and_skips_refusals(tmp_path):
    mem = session_memory(tmp_path / "m.sqlite", "s1")
    quoted = "The texts I have say this:\n> “" + "Mendicants, all is burning. " * 30 + "” [SN 35.28:1.3]"
    await mem.add_turn("Q1", quoted + "\n\nThe eye is burning with greed [SN 35.28:1.4].", cited_refs=["SN 35.28:1.4"],
                       search_query="", status="answered", said="The eye is burning with greed [SN 35.28:1.4].",
                       cited_suttas=["SN 35.28"])
    await mem.add_turn("Q2", "I don't find this in the texts I have.", cited_refs=[], search_query="",
                       status="abstained")
    await mem.add_turn("Q3", quoted, cited_refs=["SN 35.28:1.3"], search_query="", status="answered",
                       cited_suttas=["SN 35.28"])  # the evidence alone: nothing of the model's stood
    recap = await session_memory(tmp_path / "m.sqlite", "s1").recap()
    assert recap.startswith("(Earlier in this conversation: the reader asked “Q1” and was told: “The eye is burning "
                            "with greed.”; then the reader asked “Q3” and was shown SN 35.28 saying: “Mendicants, all "
                            "is burning. Mendicants")
    assert "[" not in recap and ">" not in recap and len(recap) < 400


async def test_right_after_that_across_a_restart(base, tmp_path):
    settings_extra = {"memory_db": tmp_path / "chat.sqlite"}
    scholar, _ = scholar_for(base, [FIRST, FOLLOW], **settings_extra)
    first = await scholar.aask("What does the Fire Sermon say is burning?", session_id="chat-1")
    assert "SN 35.28:1.4" in [c.ref for c in first.citations]

    # a new Scholar (a restarted process) on the same SQLite file
    scholar2, llm2 = scholar_for(base, [NEXT, FOLLOW], **settings_extra)
    second = await scholar2.aask("And what comes just before that?", session_id="chat-1")
    assert [t.tool for t in second.trace[:2]] == ["resolve_question", "expand_context"]
    assert second.resolution.kind == "follow_up" and second.resolution.follow_up == "before"
    # read back from the earliest line the reader was shown: the key lines quoted above the answer start at 1.3
    assert second.trace[1].input["ref"] == "SN 35.28:1.3–2.1" and second.trace[1].input["before"] == 2
    prompt = llm2.prompts[0]
    # the earlier turn, as a note beside the question: no earlier assistant turn for the model to imitate
    assert "the reader asked “What does the Fire Sermon say is burning?”" in prompt[1].content
    assert [m.role for m in prompt[:2]] == ["system", "user"]
    assert second.status == "answered" and [c.ref for c in second.citations][-1] == "SN 35.28:1.1"



async def test_sessions_do_not_leak_into_each_other(base, tmp_path):
    settings_extra = {"memory_db": tmp_path / "chat.sqlite"}
    scholar, _ = scholar_for(base, [FIRST, FOLLOW], **settings_extra)
    await scholar.aask("What does the Fire Sermon say is burning?", session_id="a")
    scholar2, llm2 = scholar_for(base, [NEXT, FOLLOW], **settings_extra)
    other = await scholar2.aask("And what comes right after that?", session_id="b")
    assert other.trace[0].tool != "expand_context"
    # session a's question never reaches session b's prompts (the tool descriptions name the Fire Sermon anyway)
    assert not any("What does the Fire Sermon say" in (m.content or "") for prompt in llm2.prompts for m in prompt)
