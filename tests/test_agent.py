"""The real ReAct loop (LlamaIndex workflow agent) driven by a scripted LLM over the tiny tools index."""



from scholar_helpers import scholar_for, session_memory

ANSWER = ("Thought: I can answer from the passages.\nAnswer: The Buddha says \"all is burning\": the eye is burning, "
          "sights are burning [SN 35.28:1.3–2.1]. They burn with the fires of greed, hate and delusion "
          "[SN 35.28:1.3–2.1].")
FOLLOW = "What is the all?\nHow does one become disillusioned with the eye?\nWhat are the three fires?"


async def _run(scholar, question, **kw):
    tokens, steps, final = [], [], None
    async for ev in scholar.astream(question, **kw):
        if ev.kind == "token":
            tokens.append(ev.text)
        elif ev.kind == "step":
            steps.append(ev)
        else:
            final = ev.answer
    return "".join(tokens), steps, final


async def test_one_step_answer_from_the_planned_lookup(base):
    scholar, llm = scholar_for(base, [ANSWER, FOLLOW])
    streamed, steps, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.status == "answered"
    assert [t.tool for t in answer.trace] == ["lookup_sutta"]
    assert answer.trace[0].input["sutta_id"] == "SN 35.28"
    # the planned call is in the scratchpad the model saw, as JSON, with the passage and its citable ref
    prompt = llm.prompts[0]
    assert '"sutta_id": "SN 35.28"' in prompt[-2].content
    assert prompt[-1].content.startswith("Observation:") and "\n[1] SN 35.28:" in prompt[-1].content
    assert {e.phase for e in steps} == {"start", "end"}
    assert answer.follow_ups == FOLLOW.splitlines()
    assert answer.timings["first_token"] <= answer.timings["total"]


async def test_model_selects_a_tool_and_gets_its_observation(base):
    call = ('Thought: I need the text after this.\nAction: expand_context\n'
            'Action Input: {"ref": "SN 35.28:1.4", "after": 1}')
    scholar, llm = scholar_for(base, [call, ANSWER, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert [t.tool for t in answer.trace] == ["lookup_sutta", "expand_context"]
    assert answer.trace[1].input == {"ref": "SN 35.28:1.4", "before": 1, "after": 1}
    second = llm.prompts[1]
    assert second[-1].content.startswith("Observation:") and "SN 35.28" in second[-1].content
    assert answer.status == "answered"


async def test_wrong_argument_names_are_tolerated(base):
    call = 'Thought: search.\nAction: search_passages\nAction Input: {"input": "fires of greed"}'
    scholar, llm = scholar_for(base, [call, ANSWER, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.trace[1].tool == "search_passages" and answer.trace[1].input["query"] == "fires of greed"
    assert answer.trace[1].error is None


async def test_malformed_reply_is_retried_with_the_parse_error(base):
    bad = "Thought: let me look\nAction: lookup_sutta\nAction Input: SN 35.28 please"
    scholar, llm = scholar_for(base, [bad, ANSWER, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.status == "answered" and answer.error is None
    retry_prompt = " ".join(m.content or "" for m in llm.prompts[1])
    assert "Error while parsing the output" in retry_prompt
    assert len(llm.prompts) == 3  # bad reply, retry, follow-ups


async def test_malformed_twice_falls_back_to_answering_from_the_passages(base):
    bad = "Thought: hmm\nAction: lookup_sutta\nAction Input: SN 35.28"
    direct = "All is burning: the eye, sights and eye consciousness are burning [SN 35.28:1.3–2.1]."
    scholar, llm = scholar_for(base, [bad, bad, direct, FOLLOW])
    streamed, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.status == "answered"
    assert "format" in (answer.error or "")
    assert "Write the answer now" in llm.prompts[2][-1].content  # the fallback prompt, no ReAct format
    assert "burning" in streamed and answer.citations


async def test_a_repeated_call_is_answered_right_after_the_agents_own_exchange(base):
    call = ('Thought: I need more.\nAction: search_passages\nAction Input: {"query": "all is burning eye", '
            '"collection": "SN"}')
    direct = "All is burning: the eye, sights and eye consciousness are burning [1]."
    scholar, llm = scholar_for(base, [call, call, direct, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert "search_passages" in (answer.error or "")  # the second asking ended the loop
    agent, fallback = llm.prompts[1], llm.prompts[2]
    # the agent's last prompt, its reply, then the request: a prefix the model's cache already holds
    assert [m.content for m in fallback[: len(agent)]] == [m.content for m in agent]
    assert fallback[len(agent)].content == call
    assert "without another tool call" in fallback[-1].content
    assert answer.status == "answered" and "burning" in answer.answer.split("\n\n")[-1]


async def test_the_fallback_never_streams_a_scratchpad_the_model_wrote_anyway(base):
    bad = "Thought: hmm\nAction: lookup_sutta\nAction Input: SN 35.28"
    direct = ("Thought: The passages say the senses burn.\nAnswer: All is burning: the eye, sights and eye "
              "consciousness are burning [SN 35.28:1.3–2.1].\nThought: done")
    scholar, _ = scholar_for(base, [bad, bad, direct, FOLLOW])
    streamed, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert "Thought" not in streamed and "Answer:" not in streamed
    explained = streamed.split("\n\n", 1)[0]  # above the quoted evidence
    # streamed as checked: the range narrowed to the segment that holds the claim, as in the answer itself
    assert explained.startswith("All is burning") and explained.rstrip().endswith("[SN 35.28:1.4].")
    assert answer.status == "answered" and "Thought" not in answer.answer and streamed == answer.answer


async def test_step_limit_ends_in_a_best_answer_not_an_exception(base):
    calls = [f'Thought: more.\nAction: search_passages\nAction Input: {{"query": "{q}"}}'
             for q in ("burning", "the eye burning", "fire")]
    direct = "The eye is burning [SN 35.28:1.3–2.1]."
    scholar, llm = scholar_for(base, [*calls, direct, FOLLOW], agent_max_steps=3)
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.status == "answered"
    assert "step limit (3)" in answer.error
    assert answer.citations and answer.citations[0].sutta_id == "SN 35.28"


async def test_a_tool_call_asked_for_again_ends_the_loop_with_an_answer_from_the_evidence(base):
    again = 'Thought: more.\nAction: search_passages\nAction Input: {"query": "What  is burning"}'
    direct = "The eye is burning [SN 35.28:1.3–2.1]."
    scholar, llm = scholar_for(base, [again.replace("What  is", "what is"), again, direct, FOLLOW],
                               agent_max_steps=8)
    steps, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.status == "answered" and "repeated a tool call (search_passages" in answer.error
    assert [s.tool for s in answer.trace].count("search_passages") == 1  # the repeat is refused, not run
    assert answer.citations and answer.citations[0].sutta_id == "SN 35.28"


async def test_every_tool_step_reaches_the_stream_in_order_before_the_tokens_it_led_to(base):
    call = 'Thought: I need the text after this.\nAction: expand_context\nAction Input: {"ref": "SN 35.28:1.4"}'
    scholar, _ = scholar_for(base, [call, ANSWER, FOLLOW])
    events = [ev async for ev in scholar.astream("What does the Fire Sermon say is burning?")]
    kinds = [(ev.kind, getattr(ev, "phase", None), getattr(ev, "step_id", None)) for ev in events]
    steps = [k for k in kinds if k[0] == "step"]
    assert steps == [("step", "start", "0-lookup_sutta"), ("step", "end", "0-lookup_sutta"),
                     ("step", "start", "key_lines"), ("step", "end", "key_lines"),
                     ("step", "start", "write_answer"),
                     ("step", "start", "1-expand_context"), ("step", "end", "1-expand_context"),
                     ("step", "end", "write_answer")]
    tokens = [i for i, k in enumerate(kinds) if k[0] == "token"]
    # the planned lookup's evidence is shown before the model runs; the answer came after the last tool, checked
    assert kinds.index(steps[3]) < kinds.index(steps[4]) and kinds.index(steps[-1]) < tokens[0]
    assert kinds[-1][0] == "final" and [k[0] for k in kinds].count("final") == 1


async def test_a_reader_who_leaves_stops_the_turn(base):
    scholar, llm = scholar_for(base, [ANSWER, FOLLOW])
    stream = scholar.astream("What does the Fire Sermon say is burning?", session_id="left-early")
    first = await anext(stream)
    assert first.kind == "step"
    await stream.aclose()
    assert llm.prompts == []  # the model was never asked
    assert await session_memory(scholar.settings.resolved_memory_db, "left-early").messages() == []


async def test_dead_model_gives_a_failed_answer_with_the_passages(base):
    scholar, llm = scholar_for(base, [])  # every call raises LLMUnavailableError
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert answer.status == "failed"
    assert "no reply left" in answer.error and len(llm.prompts) == 2  # the agent, then the direct fallback
    assert answer.citations and answer.citations[0].sutta_id == "SN 35.28"


async def test_scratchpad_never_reaches_the_stream(base):
    call = 'Thought: I need more context.\nAction: expand_context\nAction Input: {"ref": "SN 35.28:1.4"}'
    scholar, _ = scholar_for(base, [call, ANSWER, FOLLOW])
    streamed, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    for leak in ("Thought", "Action", "Observation", "Answer:"):
        assert leak not in streamed
    assert streamed.startswith('The Buddha says "all is burning"') and "\n\n> “" in streamed


async def test_citations_map_to_retrieved_passages_and_unretrieved_ones_are_removed(base):
    reply = ("Thought: I can answer.\nAnswer: The eye and sights are burning [SN 35.28:1.3–2.1]. "
             "Fire is praised elsewhere too [MN 99:4.2].")
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert "MN 99" not in answer.answer
    assert {c.sutta_id for c in answer.citations} == {"SN 35.28"}
    c = next(c for c in answer.citations if c.ref == "SN 35.28:1.4")  # narrowed to the segment with the claim
    assert c.chunk_id and "eye is burning" in c.excerpt.lower() and c.pali


async def test_unsupported_sentence_is_removed_and_listed(base):
    reply = ("Thought: I can answer.\nAnswer: The eye is burning [SN 35.28:1.4]. "
             "The Buddha taught this sermon to seven hundred kings riding elephants [SN 35.28:1.4].")
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert len(answer.unsupported_claims) == 1
    assert "kings" in answer.unsupported_claims[0].sentence
    assert "kings" not in answer.answer and "⚠" not in answer.answer  # gone without debris
    assert "The eye is burning [SN 35.28:1.4]." in answer.answer
    assert answer.confidence < 1.0


async def test_follow_ups_are_asked_after_the_turns_own_prompt_so_the_cache_is_reused(base):
    scholar, llm = scholar_for(base, [ANSWER, FOLLOW])
    await scholar.aask("What does the Fire Sermon say is burning?")
    agent_call, follow_call = llm.prompts
    assert [m.content for m in follow_call[: len(agent_call)]] == [m.content for m in agent_call]
    assert follow_call[len(agent_call)].content == ANSWER  # the model's own reply, verbatim
    assert "follow-up questions" in follow_call[-1].content


def test_output_budget_is_raised_for_notes_and_lowered_for_follow_ups():
    from chat.pipeline.agent import with_max_tokens
    from chat.providers.scripted import ScriptedLLM

    llm = ScriptedLLM([], max_tokens=512)
    assert with_max_tokens(llm, 1100).max_tokens == 1100
    assert with_max_tokens(llm, 100).max_tokens == 512  # raising only, unless asked to lower
    assert with_max_tokens(llm, 100, lower=True).max_tokens == 100


async def test_a_sentence_left_without_a_reference_is_not_shown(base):
    # its number was never shown, so its reference goes; too short to be judged a claim, it was never checked
    reply = ("Thought: I can answer.\nAnswer: The eye is burning [SN 35.28:1.4]. The sermon was taught to the Buddha "
             "by his disciples [9].")
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert "disciples" not in answer.answer and "The eye is burning [SN 35.28:1.4]." in answer.answer
    assert [(c.sentence, c.verdict) for c in answer.unsupported_claims] == [
        ("The sermon was taught to the Buddha by his disciples.", "uncited")]


async def test_a_retrieved_sutta_named_in_prose_gets_cited(base):
    reply = ("Thought: I can answer.\nAnswer: This is taught in SN 35.28, the discourse called Burning, given at "
             "Gayā Head.")
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert {c.sutta_id for c in answer.citations} == {"SN 35.28"}
    assert "[SN 35.28:" in answer.answer.split("\n\n", 1)[1]


async def test_a_draft_that_cites_nothing_becomes_the_evidence_alone(base):
    reply = ("Thought: I can answer.\nAnswer: The sermon teaches that kings should be generous to their subjects "
             "and to the poor. Generosity leads to a heavenly rebirth for all of them.")
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    _, _, answer = await _run(scholar, "What does the Fire Sermon say is burning?")
    assert "kings" not in answer.answer and "⚠" not in answer.answer
    assert answer.answer.startswith("The texts I have say this (SN 35.28):")
    assert "> “" in answer.answer and "burning" in answer.answer.lower()
    assert [c.sutta_id for c in answer.citations] == ["SN 35.28"]
    assert [v.verdict for v in answer.unsupported_claims] == ["uncited", "uncited"]
    assert answer.status == "answered" and answer.confidence <= 0.3


async def test_the_twin_of_a_deduplicated_stock_passage_can_be_cited(base):
    # the tiny index holds the same stock text in SN 43.5 and AN 4.274: one is shown, the other named beside it
    question = "Which discourses say the path to the unconditioned is observing an aspect of the body?"
    scholar, llm = scholar_for(base, ["Thought: both have it.\nAnswer: It is observing an aspect of the body.", FOLLOW])
    first = await scholar.aask(question)
    observation = "".join(m.content for m in llm.prompts[0])
    shown, twin = sorted({"SN 43.5", "AN 4.274"}, key=lambda s: f"] {s}:" not in observation)
    assert f"(also at {twin}:" in observation
    twin_ref = observation.split("(also at ", 1)[1].split(")", 1)[0]

    reply = f"Thought: both have it.\nAnswer: The path is observing an aspect of the body [{twin_ref}]."
    scholar, _ = scholar_for(base, [reply, FOLLOW])
    answer = await scholar.aask(question)
    # the twin's reference is kept (or narrowed to the same words in the text shown), never dropped as unretrieved
    assert "The path is observing an aspect of the body [" in answer.answer and "⚠" not in answer.answer
    said = answer.answer.split("The path is observing an aspect of the body [", 1)[1].split("]", 1)[0]
    assert said.split(":")[0] in {shown, twin}  # the key lines above it may quote other texts too
    assert first.status == "answered"


def test_lookup_with_a_query_finds_the_passage_that_has_the_question_in_order(base):
    from tools.function_tools import CanonTools
    from tools.turn import TurnRecorder

    from helpers_tools import open_library

    canon = CanonTools(open_library(base), TurnRecorder())
    shown = canon.lookup_sutta("DN 22", query="what is the noble truth of the origin of suffering").text
    refs = [" ".join(line.split(" ")[1:3]) for line in shown.splitlines() if line.startswith("[")]
    assert len(refs) == canon.budget.windows  # the named sutta gets its full share
    assert "18.1" in refs[0], refs  # first: word order decides among chunks that all share the words


def test_a_scratchpad_without_an_answer_is_no_draft():
    from chat.pipeline.reply import clean_draft

    assert clean_draft("Thought: I will search\nAction: search_passages") == ""
    assert clean_draft("Thought: ok\nAnswer: All is burning [SN 35.28:1.3].\nThought: extra") == \
        "All is burning [SN 35.28:1.3]."
    assert clean_draft("The eye is burning [1].\nSo are sights [1].") == "The eye is burning [1].\nSo are sights [1]."
