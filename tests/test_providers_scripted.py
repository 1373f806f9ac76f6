"""ScriptedLLM (replies in order, or a reply function) and the rule-based policy the `scripted` provider uses."""

from __future__ import annotations

import pytest
from llama_index.core.agent.react.output_parser import ReActOutputParser
from llama_index.core.agent.react.types import ActionReasoningStep, ResponseReasoningStep
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.errors import LLMUnavailableError
from chat.providers.rule_based import rule_based_reply, user_question
from chat.providers.scripted import ScriptedLLM
from indexing.vocabulary import ABSTAIN_SENTENCE
from prompts import load_prompt

SYSTEM = ChatMessage(role=MessageRole.SYSTEM, content="Tools...\nThought: ...\nAction: ...\nAction Input: {...}")


def _user(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.USER, content=text)


def _assistant(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.ASSISTANT, content=text)


# --- ScriptedLLM ------------------------------------------------------------------------------------------
async def test_replies_come_in_order_on_every_entry_point_and_prompts_are_recorded():
    llm = ScriptedLLM(["one", "two words", "three", "four", "five six", "seven"])
    msgs = [_user("q")]
    assert llm.chat(msgs).message.content == "one"
    streamed = [r.delta for r in llm.stream_chat(msgs)]
    assert streamed == ["two ", "words"]
    assert (await llm.achat(msgs)).message.content == "three"
    assert [r.delta async for r in await llm.astream_chat(msgs)] == ["four"]
    assert llm.complete("a prompt").text == "five six"
    assert (await llm.acomplete("another")).text == "seven"
    assert llm.calls == 6
    assert llm.prompts[4] == [_user("a prompt")]
    with pytest.raises(LLMUnavailableError, match="no reply left for call 7"):
        llm.chat(msgs)


def test_reply_function_sees_the_messages():
    llm = ScriptedLLM(lambda messages: f"{len(messages)}:{messages[-1].content.upper()}")
    assert llm.chat([SYSTEM, _user("hello")]).message.content == "2:HELLO"
    assert "".join(r.delta for r in llm.stream_chat([_user("a b")])) == "1:A B"
    assert llm.prompts[0][0].role == MessageRole.SYSTEM


def test_recorded_prompts_are_copies():
    llm = ScriptedLLM(["x"])
    msg = _user("before")
    llm.chat([msg])
    msg.content = "after"
    assert llm.prompts[0][0].content == "before"


# --- the rule-based policy --------------------------------------------------------------------------------
OBSERVATION = (
    "Observation: [SN 35.28:1.3–1.6] The Fire Sermon: Mendicants, all is burning. And what is the all that is "
    "burning? The eye is burning. Sights are burning.\n"
    "[SN 35.28:2.1] The Fire Sermon: Seeing this, a learned noble disciple grows disillusioned."
)


def test_first_step_searches_for_the_question_without_the_planner_notes():
    turn = load_prompt("turn", question="What does the Fire Sermon say is burning?",
                       hints="(Notes: nicknames: Fire Sermon = SN 35.28.)").strip()
    reply = rule_based_reply([SYSTEM, _user(turn)])
    step = ReActOutputParser().parse(reply)
    assert isinstance(step, ActionReasoningStep) and step.action == "search_passages"
    assert step.action_input == {"query": "What does the Fire Sermon say is burning?"}


def test_after_an_observation_it_answers_from_the_first_cited_passage():
    messages = [SYSTEM, _user("What is burning?"),
                _assistant('Thought: search\nAction: search_passages\nAction Input: {"query": "What is burning?"}'),
                _user(OBSERVATION)]
    reply = rule_based_reply(messages)
    step = ReActOutputParser().parse(reply, is_streaming=False)
    assert isinstance(step, ResponseReasoningStep)
    assert step.response == 'According to [SN 35.28:1.3–1.6], "Mendicants, all is burning."'


def test_the_answer_follows_the_observation_not_a_fixed_text():
    other = "Observation: [MN 21:20.1] The Simile of the Saw: Even if bandits sever you limb from limb."
    reply = rule_based_reply([SYSTEM, _user("saw?"), _user(other)])
    assert reply.endswith('According to [MN 21:20.1], "Even if bandits sever you limb from limb."')


def test_observations_of_earlier_turns_do_not_count():
    messages = [SYSTEM, _user("first question"), _user(OBSERVATION), _assistant("Answer: ..."),
                _user("and what comes next?")]
    assert "Action: search_passages" in rule_based_reply(messages)
    assert user_question(messages) == "and what comes next?"


def test_no_cited_passage_means_abstaining():
    reply = rule_based_reply([SYSTEM, _user("Heart Sutra?"), _user("Observation: No passages found.")])
    assert reply == f"Thought: I can answer.\nAnswer: {ABSTAIN_SENTENCE}"


def test_direct_fallback_prompt_is_answered_without_react_format():
    user = load_prompt("fallback_user", passages=OBSERVATION.removeprefix("Observation: "), question="What burns?")
    reply = rule_based_reply([ChatMessage(role=MessageRole.SYSTEM, content="You are Canon Scholar."), _user(user)])
    assert reply == 'According to [SN 35.28:1.3–1.6], "Mendicants, all is burning."'


def test_follow_up_prompt_gets_the_requested_number_of_questions():
    prompt = load_prompt("followups", count=3, question="What is burning?", answer="The all is burning.",
                         sources="SN 35.28, MN 10")
    lines = rule_based_reply([_user(prompt)]).splitlines()
    assert len(lines) == 3 and all(line.endswith("?") for line in lines)
    assert "SN 35.28" in lines[0] and "MN 10" in lines[1]
async def test_rule_based_llm_drives_the_real_scholar(tmp_path_factory):
    """The real agent loop and tools over the tiny index: one search, then an answer citing what it returned."""
    from chat.pipeline.scholar import Scholar

    from helpers_tools import open_library

    base = tmp_path_factory.getbasetemp() / "agent-index"
    library = open_library(base)
    settings = library.settings.model_copy(update={"memory_db": base / "memory-rule-based.sqlite"})
    llm = ScriptedLLM(rule_based_reply)
    answer = await Scholar(settings, library, llm).aask("Why does the teaching say that the eye is burning?")
    assert answer.status == "answered", (answer.error, answer.answer)
    body, shown = answer.answer.split("\n\n", 1)
    assert body.startswith("According to [") and shown.startswith("> “")  # the explanation, then its evidence
    retrieved = {c.sutta_id for c in answer.citations}
    assert retrieved and all(sid in answer.answer for sid in retrieved)
    assert llm.calls >= 1
