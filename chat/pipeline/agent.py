"""The LlamaIndex ReAct agent, shaped for a 1.5B model.

Three changes to the stock agent, each because a small model needs it:
- the system header is ours (prompts/react_header.md, domain examples, compact one-line tool signatures instead of
  JSON schemas) and is identical for every question of a mode, so llama.cpp reuses its KV cache across steps and
  turns;
- the planner's up-front retrieval is seeded into the scratchpad as a finished Action/Observation pair, so a
  simple question is answered in one LLM call;
- a reply that still does not parse after one retry raises `MalformedOutputError` instead of looping to the
  step limit; the Scholar then answers from what was retrieved. The step limit itself raises `StepLimitError`,
  so the Scholar can tell it from the workflow's other runtime errors, and a tool call made a second time in one
  turn raises `RepeatedCallError` (the model has stopped learning anything; the Scholar answers from what it has).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from llama_index.core.agent.react.formatter import ReActChatFormatter
from llama_index.core.agent.react.types import (
    ActionReasoningStep,
    BaseReasoningStep,
    ObservationReasoningStep,
)
from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.agent.workflow.base_agent import DEFAULT_MAX_ITERATIONS
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import Field
from llama_index.core.llms import LLM
from llama_index.core.tools import BaseTool

from chat.errors import ChatError
from chat.pipeline.plan import PlannedStep
from prompts import load_prompt
from tools.function_tools import ToolResult

log = logging.getLogger(__name__)


class MalformedOutputError(ChatError):
    """The model's reply could not be parsed as a ReAct step, even after it was shown the parse error."""

    def __init__(self, raw: str):
        super().__init__("the model's reply did not follow the Thought/Action/Answer format")
        self.raw = raw


class StepLimitError(ChatError):
    """The agent used all its steps without an answer."""

    def __init__(self, max_steps: int):
        super().__init__(f"the step limit ({max_steps}) was reached")
        self.max_steps = max_steps


def tool_signature(tool: BaseTool) -> str:
    """`search_passages(query, collection="", k=5)`: a tenth of the tokens of the JSON schema."""
    schema = tool.metadata.fn_schema
    args: list[str] = []
    if schema is not None:
        for name, info in schema.model_fields.items():
            if info.is_required():
                args.append(name)
            else:
                args.append(f"{name}={json.dumps(info.default, ensure_ascii=False)}")
    return f"{tool.metadata.name}({', '.join(args)})"


def describe_tools(tools: Sequence[BaseTool]) -> str:
    return "\n".join(f"- {tool_signature(t)}: {t.metadata.description.strip()}" for t in tools)


def system_header(tools: Sequence[BaseTool], mode: str) -> str:
    return load_prompt(
        "react_header",
        rules=load_prompt("system").strip(),
        tool_desc=describe_tools(tools),
        tool_names=", ".join(t.metadata.get_name() for t in tools),
        answer_rules=load_prompt("notes_rules" if mode == "notes" else "answer_rules").strip(),
    )


def seed_steps(done: Sequence[tuple[PlannedStep, ToolResult]]) -> list[BaseReasoningStep]:
    """The planned steps the Scholar ran up front, with their results -> finished scratchpad steps."""
    steps: list[BaseReasoningStep] = []
    for step, result in done:
        steps.append(ActionReasoningStep(thought=step.thought, action=step.tool, action_input=step.kwargs))
        steps.append(ObservationReasoningStep(observation=result.text))
    return steps


def _step_text(step: BaseReasoningStep) -> str:
    if isinstance(step, ActionReasoningStep):
        # JSON, not the Python dict repr the stock step prints: small models imitate what they see.
        return (f"Thought: {step.thought}\nAction: {step.action}\n"
                f"Action Input: {json.dumps(step.action_input, ensure_ascii=False)}")
    return step.get_content()


class CanonFormatter(ReActChatFormatter):
    """Our header verbatim, the seeded steps first, every step rendered the way we want it imitated."""

    seed: list[BaseReasoningStep] = Field(default_factory=list)

    def format(
        self,
        tools: Sequence[BaseTool],
        chat_history: list[ChatMessage],
        current_reasoning: list[BaseReasoningStep] | None = None,
    ) -> list[ChatMessage]:
        messages = [ChatMessage(role=MessageRole.SYSTEM, content=self.system_header), *chat_history]
        for step in [*self.seed, *(current_reasoning or [])]:
            role = self.observation_role if isinstance(step, ObservationReasoningStep) else MessageRole.ASSISTANT
            messages.append(ChatMessage(role=role, content=_step_text(step)))
        return messages


class RepeatedCallError(ChatError):
    """The model asked for a tool call it had already made this turn: it would only see the same passages again."""

    def __init__(self, call: str):
        super().__init__(f"the model repeated a tool call ({call})")
        self.call = call


def _call_key(tool: str, kwargs: dict) -> str:
    return json.dumps([tool, {k: " ".join(str(v).lower().split()) for k, v in sorted(kwargs.items())}],
                      ensure_ascii=False)


class CanonReActAgent(ReActAgent):
    max_parse_retries: int = Field(default=1, description="Parse failures shown back to the model before giving up.")

    async def take_step(self, ctx, llm_input, tools, memory):
        output = await super().take_step(ctx, llm_input, tools, memory)
        # A small model that has nothing new to go on asks for the same lookup again and again (six times in one
        # follow-up, 108 s); the second asking is where the evidence shown is all it will get.
        made = await ctx.store.get("calls", default=None)
        if made is None:
            seed = getattr(self.formatter, "seed", [])
            made = [_call_key(s.action, s.action_input) for s in seed if isinstance(s, ActionReasoningStep)]
        for call in output.tool_calls:
            key = _call_key(call.tool_name, call.tool_kwargs)
            if key in made:
                raise RepeatedCallError(f"{call.tool_name}({json.dumps(call.tool_kwargs, ensure_ascii=False)})")
            made.append(key)
        await ctx.store.set("calls", made)
        if output.retry_messages:
            failures = await ctx.store.get("parse_failures", default=0) + 1
            await ctx.store.set("parse_failures", failures)
            raw = output.response.content or ""
            log.info("unparseable ReAct reply (%d): %.200r", failures, raw)
            if failures > self.max_parse_retries:
                raise MalformedOutputError(raw)
        # The workflow counts every output (retries too) and raises a bare WorkflowRuntimeError on the one that
        # reaches max_iterations; raising here first, on the same output, gives the limit its own type.
        done = await ctx.store.get("num_iterations", default=0) + 1
        limit = await ctx.store.get("max_iterations", default=DEFAULT_MAX_ITERATIONS)
        if done >= limit:
            raise StepLimitError(limit)
        return output


def with_max_tokens(llm: LLM, max_tokens: int, *, lower: bool = False) -> LLM:
    """A copy of the LLM allowed `max_tokens` of output: more for study notes, fewer (lower=True) for the
    follow-up questions. Providers without such a field are returned unchanged."""
    for field in ("max_tokens", "max_new_tokens", "num_output"):
        if field in type(llm).model_fields:
            current = getattr(llm, field) or 0
            if current == max_tokens or (current > max_tokens and not lower) or (current < max_tokens and lower):
                return llm
            return llm.model_copy(update={field: max_tokens})
    return llm


def build_agent(
    llm: LLM,
    tools: Sequence[BaseTool],
    *,
    mode: str = "qa",
    seed: Sequence[BaseReasoningStep] = (),
    max_parse_retries: int = 1,
    **kwargs: Any,
) -> CanonReActAgent:
    formatter = CanonFormatter(system_header=system_header(tools, mode), seed=list(seed))
    return CanonReActAgent(
        name="scholar",
        description="Answers questions about the Pali discourses with citations.",
        tools=list(tools),
        llm=llm,
        formatter=formatter,
        streaming=True,
        max_parse_retries=max_parse_retries,
        **kwargs,
    )
