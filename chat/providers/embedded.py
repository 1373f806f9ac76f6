"""The offline default LLM: the Qwen2.5-Coder 1.5B GGUF run in-process by llama-cpp-python, as a LlamaIndex LLM."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import threading
import time
import zlib
from array import array
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM

from chat.errors import ChatError, LLMUnavailableError
from chat.providers.calls import ModelCall, record
from chat.providers.calls import current as current_calls
from chat.providers.model_files import MODEL_NAME, install_model, is_verified, model_path, model_status
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

# "Observation:" stops a ReAct step where the tool output belongs, so the model cannot invent one.
STOP_SEQUENCES = ["<|im_end|>", "<|endoftext|>", "Observation:"]
DEFAULT_SYSTEM = "You are a helpful assistant."
# A small model that starts copying its passages' headers can cycle through them until max_tokens (seen: 366
# tokens, 37 s, for an answer the checks then discarded). No answer, note or tool call of ours writes the same
# 80 characters twice, so the second time ends the generation there.
LOOP_SPAN = 80
_ROLE = {MessageRole.SYSTEM: "system", MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant"}


def chatml(messages: Sequence[ChatMessage]) -> str:
    """Qwen's ChatML; tool/function outputs go in as user turns, which is how the ReAct formatter sends them too."""
    out: list[str] = []
    if not messages or messages[0].role != MessageRole.SYSTEM:
        out.append(f"<|im_start|>system\n{DEFAULT_SYSTEM}<|im_end|>\n")
    for message in messages:
        role = _ROLE.get(message.role, "user")
        out.append(f"<|im_start|>{role}\n{message.content or ''}<|im_end|>\n")
    out.append("<|im_start|>assistant\n")
    return "".join(out)


# A sentence that has just ended and opened its first reference: "… Middle Discourses. [" (or "[2", "[2] ").
_SENTENCE_THEN_REFS = re.compile(r"(?:^|\]|\n)\s*([^\[\]\n]{20,}?)\s*\[\d*\]?\s*$")


def repeats_itself(text: str, span: int = LOOP_SPAN) -> bool:
    """Whether the last `span` characters of `text` already occur earlier in it, or the sentence it has just
    finished was written before (the same heading again with another passage number: "X. [1] X. [2]")."""
    if len(text) >= 2 * span and text[-span:] in text[:-span]:
        return True
    if not text.rstrip().rstrip("]0123456789").endswith("["):
        return False
    ended = _SENTENCE_THEN_REFS.search(text)
    return ended is not None and ended.group(1) in text[:ended.start(1)]


@dataclass
class GenerationStats:
    prompt_tokens: int = 0
    reused_tokens: int = 0  # prompt prefix already in llama.cpp's KV cache from the previous call
    completion_tokens: int = 0
    prompt_seconds: float = 0.0  # until the first token: prompt evaluation of the non-reused part
    decode_seconds: float = 0.0
    looped: bool = False  # stopped because the text began to repeat itself


class _Runtime:
    """One llama.cpp instance per (model, n_ctx) per process; llama.cpp is not re-entrant, hence the lock.

    The thread count of the first load stays: a second instance would cost another KV cache and its prefix."""

    _instances: dict[tuple, _Runtime] = {}
    _registry_lock = threading.Lock()

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        self._last_prompt = 0  # tokens of the last prompt evaluated on this context
        self._im_end: int | None = None
        self.reused = 0  # tokens the last prompt found held, for the figures

    def keep_for(self, tokens: list[int], *, again: bool = False) -> int:
        """Set the context to keep only what `stable_keep` allows of what it holds for the prompt `tokens`
        (evaluating the prompt's system block on its own when it does not hold that); returns how many of the
        prompt's tokens the context now holds, and records in `reused` how many it kept. Never the whole prompt: its
        last token is decoded again, for the logits that choose (or score) the next. `again`: the caller asks a
        prompt of its own turn once more (more drafts of one prompt), so all the context shares with it is reused:
        it was evaluated earlier in the same chain of calls, the same way whenever that turn is asked. Called under
        the lock."""
        llama = self.llama
        if self._im_end is None:
            self._im_end = _im_end(llama)
        boundary = system_boundary(tokens, self._im_end)
        held = list(llama.input_ids[: llama.n_tokens])
        keep = min(shared_prefix(held, tokens) if again else stable_keep(held, tokens, self._last_prompt, boundary),
                   len(tokens) - 1)
        llama.n_tokens = max(keep, 0)
        llama._ctx.kv_cache_seq_rm(-1, llama.n_tokens, -1)
        if llama.n_tokens == 0 and 0 < boundary < len(tokens):
            llama.eval(tokens[:boundary])  # on its own, as every later prompt with this block will find it
        self._last_prompt = len(tokens)
        self.reused = max(keep, 0)
        return llama.n_tokens

    def grammar(self, gbnf: str) -> Any:
        """The compiled llama.cpp grammar for this GBNF text (compiling takes milliseconds; answers reuse a few)."""
        compiled = self._grammars.get(gbnf)
        if compiled is None:
            from llama_cpp import LlamaGrammar

            try:
                compiled = LlamaGrammar.from_string(gbnf, verbose=False)
            except ValueError as exc:
                raise ChatError(f"invalid output grammar: {exc}") from exc
            if len(self._grammars) > 32:
                self._grammars.clear()
            self._grammars[gbnf] = compiled
        return compiled

    @classmethod
    def get(cls, path: str, n_ctx: int, n_threads: int, n_batch: int) -> _Runtime:
        key = (path, n_ctx, n_batch)
        with cls._registry_lock:
            runtime = cls._instances.get(key)
            if runtime is None:
                runtime = cls(_load_llama(path, n_ctx, n_threads, n_batch))
                cls._instances[key] = runtime
            return runtime


def stable_keep(held: list[int], tokens: list[int], last_prompt: int, boundary: int) -> int:
    """How many of the tokens a context holds (`held`) a new prompt may reuse, so that what the model writes for a
    prompt never depends on what it was asked before. llama.cpp's numbers for a token differ in the last bits with
    the batch it was evaluated in, and the choice between two near-equal tokens can turn on them: reusing
    whatever prefix the last call happened to share, the same question, asked alone or after others, got different
    answers (seen on answers-dev's ad18, and with a fixed seed on a sampled reply). So a prompt keeps
    - all it shares with the context when it goes on from the last prompt (a second try, the follow-ups: the
      exchange they extend was itself evaluated the same way every time);
    - else its system block (`boundary` tokens), when the context holds that: a system block is always evaluated on
      its own first;
    - else nothing."""
    shared = shared_prefix(held, tokens)
    if 0 < last_prompt <= shared and len(tokens) > last_prompt:
        return shared
    return boundary if boundary and shared >= boundary else 0


def shared_prefix(held: list[int], tokens: list[int]) -> int:
    """How many tokens the two sequences share from their start."""
    shared = 0
    for a, b in zip(held, tokens):
        if a != b:
            break
        shared += 1
    return shared


def prompt_seed(tokens: list[int], seed: int) -> int:
    """The sampling seed for a prompt: `seed` mixed with the prompt's own checksum. llama-cpp-python, given none,
    draws each call's seed from the last call's, so a reply depended on how many calls the process had made before
    it; one seed for every call would give every prompt the same random draw at its first token, the same luck in
    every answer (in the one run with one seed, three answerable questions were declined that no other run
    declined). A prompt's own seed is the same whenever it is asked and independent of every other prompt's."""
    return zlib.crc32(array("I", tokens).tobytes(), seed) & 0xFFFFFFFF


def system_boundary(tokens: list[int], im_end: int | None) -> int:
    """Where a ChatML prompt's system block ends (after its first <|im_end|>), or 0 when it has none."""
    if im_end is None or not tokens:
        return 0
    try:
        return tokens.index(im_end) + 1
    except ValueError:
        return 0


def _im_end(llama: Any) -> int | None:
    ids = llama.tokenize(b"<|im_end|>", add_bos=False, special=True)
    return ids[0] if len(ids) == 1 else None


def _load_llama(path: str, n_ctx: int, n_threads: int, n_batch: int) -> Any:
    try:
        from chat.providers.lazy_grammar import lazy_llama_class

        Llama = lazy_llama_class()
    except ImportError as exc:
        raise LLMUnavailableError(
            "llama-cpp-python is not installed; `pip install -e '.[local-llm]'` (or use Ollama)."
        ) from exc
    started = time.perf_counter()
    try:
        llama = Llama(
            model_path=path,
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            n_batch=n_batch,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise LLMUnavailableError(
            f"The embedded model at {path} could not be loaded ({exc}); run `scholar models install` to rebuild it."
        ) from exc
    log.info("loaded %s in %.1fs (n_ctx=%d, threads=%d)",
             Path(path).name, time.perf_counter() - started, n_ctx, n_threads)
    return llama


class EmbeddedLLM(CustomLLM):
    model_path: str = Field(description="Path to the assembled GGUF.")
    context_window: int = Field(default=8192)
    max_tokens: int = Field(default=512)
    temperature: float = Field(default=0.1)
    n_threads: int = Field(default=2)
    n_batch: int = Field(default=512)
    repeat_penalty: float = Field(default=1.05)
    seed: int = Field(default=1)  # each prompt samples with this seed mixed with the prompt's own checksum

    _last_stats: GenerationStats | None = PrivateAttr(default=None)
    # The GBNF every generation of this copy must follow, asked for at each call: the agent's grammar depends on
    # how many numbered passages the turn has shown so far, which grows when the agent calls a tool.
    _grammar_fn: Callable[[], str | None] | None = PrivateAttr(default=None)

    @classmethod
    def class_name(cls) -> str:
        return "EmbeddedLlamaCpp"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.context_window,
            num_output=self.max_tokens,
            is_chat_model=True,
            model_name=MODEL_NAME,
        )

    @property
    def last_stats(self) -> GenerationStats | None:
        return self._last_stats

    def _runtime(self) -> _Runtime:
        return _Runtime.get(self.model_path, self.context_window, self.n_threads, self.n_batch)

    def with_grammar(self, grammar_fn: Callable[[], str | None]) -> EmbeddedLLM:
        """A copy whose every generation follows the GBNF `grammar_fn()` returns at that moment (None: free)."""
        copy = self.model_copy()
        copy._grammar_fn = grammar_fn
        return copy

    # --- scoring ------------------------------------------------------------------------------------------
    def continuation_logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        """Each token of `continuation` with its log-probability after `prompt` (ChatML text).

        Runs on a second, small llama.cpp context over the same (memory-mapped) weights, so scoring never evicts
        the answer's prompt from the main context's cache; a prompt shared with the previous scoring call is
        reused. One decode of the continuation with logits at every position: a sentence costs about what
        evaluating its tokens as prompt costs."""
        runtime = _Runtime.get(self.model_path, SCORING_CONTEXT, self.n_threads, self.n_batch)
        with runtime.lock:
            started = time.perf_counter()
            scored = _score(runtime, prompt, continuation)
            reused = runtime.reused
            # a scoring call is a model call of the turn too (the claim judge's): its tokens and seconds are recorded
            record(ModelCall(model=MODEL_NAME, prompt_tokens=runtime.llama.n_tokens - len(scored),
                             reused_tokens=reused, output_tokens=len(scored),
                             seconds=round(time.perf_counter() - started, 3)))
            return scored

    def warm_up(self) -> None:
        """Load the weights now rather than on the first question."""
        self._runtime()

    # --- generation ---------------------------------------------------------------------------------------
    def _stream_text(self, prompt: str, sink: list[ModelCall] | None = None, **kwargs: Any) -> Iterator[str]:
        """`sink`: where to record the call, for a caller in a thread of its own (else this context's turn)."""
        runtime = self._runtime()
        llama = runtime.llama
        stop = STOP_SEQUENCES + list(kwargs.get("stop") or [])
        max_tokens = int(kwargs.get("max_tokens") or self.max_tokens)
        temperature = float(kwargs.get("temperature", self.temperature))
        gbnf = kwargs.get("grammar") or (self._grammar_fn() if self._grammar_fn else None)
        grammar = runtime.grammar(gbnf) if gbnf else None
        with runtime.lock:
            tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            if len(tokens) + 16 > self.context_window:
                raise ChatError(
                    f"The prompt is {len(tokens)} tokens, more than the model's context window of "
                    f"{self.context_window}; shorten the conversation or raise SCHOLAR_LLM_CONTEXT_WINDOW."
                )
            max_tokens = min(max_tokens, self.context_window - len(tokens))
            stats = GenerationStats(prompt_tokens=len(tokens))
            started = time.perf_counter()
            runtime.keep_for(tokens, again=bool(kwargs.get("again")))
            stats.reused_tokens = runtime.reused
            first_at: float | None = None
            stream = llama.create_completion(
                tokens,
                max_tokens=max_tokens,
                temperature=temperature,
                top_p=0.9,
                repeat_penalty=self.repeat_penalty,
                stop=stop,
                stream=True,
                grammar=grammar,
                seed=prompt_seed(tokens, self.seed),
            )
            written = ""
            try:
                for chunk in stream:
                    text = chunk["choices"][0]["text"]
                    if first_at is None:
                        first_at = time.perf_counter()
                    if text:
                        written += text
                        if repeats_itself(written):
                            stats.looped = True
                            log.info("embedded: stopped a generation repeating itself after %d chars", len(written))
                            break
                        yield text
            finally:
                stream.close()
                ended = time.perf_counter()
                first_at = first_at or ended
                stats.prompt_seconds = first_at - started
                stats.decode_seconds = ended - first_at
                stats.completion_tokens = max(0, llama.n_tokens - len(tokens))
                self._last_stats = stats
                record(ModelCall(model=MODEL_NAME, prompt_tokens=stats.prompt_tokens,
                                 reused_tokens=stats.reused_tokens, output_tokens=stats.completion_tokens,
                                 seconds=round(ended - started, 3), prompt_seconds=round(stats.prompt_seconds, 3)),
                       sink)
                log.debug(
                    "embedded: prompt %d tok (%d reused) %.2fs, %d tok decoded %.2fs",
                    stats.prompt_tokens, stats.reused_tokens, stats.prompt_seconds,
                    stats.completion_tokens, stats.decode_seconds,
                )

    def _prompt_for(self, prompt: str, formatted: bool) -> str:
        return prompt if formatted or prompt.startswith("<|im_start|>") else chatml(
            [ChatMessage(role=MessageRole.USER, content=prompt)]
        )

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        text = "".join(self._stream_text(self._prompt_for(prompt, formatted), **kwargs))
        return CompletionResponse(text=text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        full_prompt = self._prompt_for(prompt, formatted)

        def gen() -> CompletionResponseGen:
            text = ""
            for delta in self._stream_text(full_prompt, **kwargs):
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return gen()

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        text = "".join(self._stream_text(chatml(messages), **kwargs))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        prompt = chatml(messages)

        def gen() -> ChatResponseGen:
            text = ""
            for delta in self._stream_text(prompt, **kwargs):
                text += delta
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=delta)

        return gen()

    # Generation runs in a worker thread so a 30-second answer never blocks the event loop (Chainlit, the API).
    async def _astream_text(self, prompt: str, **kwargs: Any) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        cancelled = threading.Event()
        done = object()
        sink = current_calls()  # the worker thread does not inherit this context: the turn's calls go along

        def put(item: object) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop closed under us: nobody is listening any more
                cancelled.set()

        def work() -> None:
            try:
                for delta in self._stream_text(prompt, sink=sink, **kwargs):
                    if cancelled.is_set():
                        break
                    put(delta)
                put(done)
            except BaseException as exc:  # handed to the awaiting side and re-raised there
                put(exc)

        worker = threading.Thread(target=work, name="embedded-llm", daemon=True)
        worker.start()
        try:
            while True:
                item = await queue.get()
                if item is done:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            cancelled.set()

    @llm_completion_callback()
    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        parts = [d async for d in self._astream_text(self._prompt_for(prompt, formatted), **kwargs)]
        return CompletionResponse(text="".join(parts))

    @llm_completion_callback()
    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        full_prompt = self._prompt_for(prompt, formatted)

        async def gen() -> CompletionResponseAsyncGen:
            text = ""
            async for delta in self._astream_text(full_prompt, **kwargs):
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return gen()

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        parts = [d async for d in self._astream_text(chatml(messages), **kwargs)]
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content="".join(parts)))

    @llm_chat_callback()
    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        prompt = chatml(messages)

        async def gen() -> ChatResponseAsyncGen:
            text = ""
            async for delta in self._astream_text(prompt, **kwargs):
                text += delta
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=delta)

        return gen()


SCORING_CONTEXT = 2048  # tokens: one or two cited passages, the question and a sentence


def _score(runtime: _Runtime, prompt: str, continuation: str) -> list[tuple[str, float]]:
    # llama-cpp-python's public API returns logprobs only for generated tokens (or for every prompt token with
    # logits_all, which allocates n_ctx x vocabulary floats); this asks llama.cpp for the continuation's logits
    # only. It uses the pinned version's batch and context wrappers, as Llama.eval does.
    import numpy as np

    llama = runtime.llama
    prefix = llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
    tokens = llama.tokenize(continuation.encode("utf-8"), add_bos=False, special=False)
    if not prefix or not tokens:
        return []
    if len(prefix) + len(tokens) + 1 > llama.n_ctx():
        raise ChatError(f"{len(prefix) + len(tokens)} tokens do not fit the scoring context of {llama.n_ctx()}")
    # the prompt's last token is decoded again: its logits score token one
    keep = runtime.keep_for(prefix)
    if len(prefix) - 1 > keep:
        llama.eval(prefix[keep:-1])
    out: list[tuple[int, float]] = []
    step = max(1, llama.n_batch - 1)
    feed = [prefix[-1], *tokens]
    for start in range(0, len(tokens), step):
        part = feed[start : start + step + 1]
        targets = tokens[start : start + step]
        llama._batch.set_batch(batch=part[: len(targets)], n_past=llama.n_tokens, logits_all=True)
        llama._ctx.decode(llama._batch)
        shape = (len(targets), llama.n_vocab())
        logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=shape).astype(np.float64)
        top = logits.max(axis=1, keepdims=True)
        lse = (np.log(np.exp(logits - top).sum(axis=1, keepdims=True)) + top)[:, 0]
        chosen = logits[np.arange(len(targets)), targets] - lse
        llama.input_ids[llama.n_tokens : llama.n_tokens + len(targets)] = part[: len(targets)]
        llama.n_tokens += len(targets)
        out.extend((token, float(lp)) for token, lp in zip(targets, chosen))
    return _as_text_pieces(llama, out)


def _as_text_pieces(llama: Any, scored: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """Token ids -> text pieces that concatenate to the decoded continuation: a character split across tokens
    ("Ā" is two) belongs to the token that completes it, so character offsets stay right."""
    out: list[tuple[str, float]] = []
    raw, shown = b"", ""
    for token, logprob in scored:
        raw += llama.detokenize([token])
        text = raw.decode("utf-8", "ignore")
        out.append((text[len(shown):], logprob))
        shown = text
    return out


def embedded_installed(settings: ScholarSettings) -> bool:
    return is_verified(model_path(settings.model_dir))


def build_embedded_llm(settings: ScholarSettings) -> EmbeddedLLM:
    path = model_path(settings.model_dir)
    if not is_verified(path):
        raise LLMUnavailableError(
            f"The embedded model is not installed at {path}: run `scholar models install` "
            "(or start Ollama and set SCHOLAR_LLM_PROVIDER=ollama)."
        )
    return EmbeddedLLM(
        model_path=str(path),
        context_window=settings.llm_context_window,
        max_tokens=settings.llm_max_tokens,
        temperature=settings.llm_temperature,
        seed=settings.llm_seed,
        # All cores by default. On a box shared with busy processes, SCHOLAR_LLM_THREADS=1 can decode ~10x faster:
        # llama.cpp's threads meet at a barrier after every layer, so one preempted thread stalls the others.
        n_threads=settings.llm_threads or os.cpu_count() or 1,
    )


def models_command(action: str, settings: ScholarSettings) -> int:
    """`scholar models install|status`: the exit code is 0 when the model is in place."""
    if action == "install":
        last = [-1]

        def progress(done: int, total: int) -> None:
            pct = done * 100 // max(total, 1)
            if pct // 10 != last[0] // 10:
                last[0] = pct
                sys.stderr.write(f"assembling {MODEL_NAME}: {pct}%\n")

        path = install_model(settings.model_dir, progress=progress)
        sys.stdout.write(f"{MODEL_NAME} installed and verified at {path}\n")
        return 0
    if action == "status":
        status = model_status(settings.model_dir)
        sys.stdout.write(f"{MODEL_NAME}: {status.detail}\n")
        if status.size is not None:
            sys.stdout.write(f"  size: {status.size / 1e6:.0f} MB\n")
        sys.stdout.write(f"  part packages found: {status.parts_found}\n")
        for requirement in status.missing_parts:
            sys.stdout.write(f"  missing: {requirement}\n")
        return 0 if status.installed else 1
    raise ChatError(f"unknown models action {action!r}; use install or status")
