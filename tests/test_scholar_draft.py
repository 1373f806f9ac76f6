"""The turn with the scripted model: the draft checked before it is shown, its sentences typed, its model calls
recorded, the verifier asked once."""

from chat.pipeline.answer import FinalEvent, StepEvent, TokenEvent

from scholar_helpers import scholar_for

FOLLOW = "What is the all?\nWhy is the eye burning?"
QUESTION = "What does the Fire Sermon say is burning?"
RIGHT = "The Buddha says the eye is burning with the fires of greed, hate and delusion [1]."
WRONG = "The Buddha says the ear is burning with the fires of joy [1]."


async def _events(base, reply: str):
    scholar, llm = scholar_for(base, [f"Thought: ok\nAnswer: {reply}", FOLLOW])
    return [ev async for ev in scholar.astream(QUESTION)], llm


async def test_nothing_streamed_is_withdrawn_the_evidence_shown_first_then_the_checked_answer(base):
    events, _ = await _events(base, f"{RIGHT} {WRONG}")
    answer = events[-1].answer
    assert isinstance(events[-1], FinalEvent) and answer.status == "answered"
    tokens = [ev.text for ev in events if isinstance(ev, TokenEvent)]
    # every token the reader saw is in the answer, in order, and the removed sentence never reached them
    assert "".join(tokens) == answer.answer
    assert not any("joy" in t for t in tokens) and "joy" not in answer.answer
    # the key lines are shown as a step before the model is asked; the answer's text only once it was checked
    kinds = [(ev.kind, getattr(ev, "step_id", None), getattr(ev, "phase", None)) for ev in events]
    shown = kinds.index(("step", "key_lines", "end"))
    assert shown < kinds.index(("step", "write_answer", "start"))
    assert events[shown].step.output_summary.startswith("> “Mendicants, all is burning.")
    written = kinds.index(("step", "write_answer", "end"))
    assert all(i > written for i, ev in enumerate(events) if isinstance(ev, TokenEvent))
    # the answer's own sentence first, the lines it restates below it
    assert tokens[0].startswith("The Buddha says the eye is burning") and "\n\n> “Mendicants" in answer.answer


async def test_a_sentence_in_the_texts_words_stands_and_a_wrong_claim_goes_with_a_plain_reason(base):
    events, _ = await _events(base, f"{RIGHT} {WRONG}")
    answer = events[-1].answer
    assert "the eye is burning with the fires of greed, hate and delusion [SN 35.28:" in answer.answer
    [claim] = answer.unsupported_claims
    assert claim.sentence.startswith("The Buddha says the ear is burning") and claim.revised_to == ""
    assert claim.kind == "not_in_text" and claim.reason == "The cited lines do not say this."
    assert "missing" in claim.detail  # the checks' own words stay with the developer


async def test_the_answer_says_which_sentences_are_its_own_and_which_are_quoted(base):
    events, _ = await _events(base, RIGHT)
    answer = events[-1].answer
    assert [s.origin for s in answer.sentences] == ["model", "quote"]
    own, quote = answer.sentences
    assert quote.text.startswith("“Mendicants, all is burning.") and quote.citations == ["SN 35.28:1.3–2.1"]
    assert own.text == "The Buddha says the eye is burning with the fires of greed, hate and delusion."
    assert own.citations and own.citations[0].startswith("SN 35.28:")
    # a client that shows the quotations and the answer's words apart has all it needs
    assert answer.answer == f"{own.text[:-1]} [{own.citations[0]}].\n\n> {quote.text} [{quote.citations[0]}]"


async def test_an_answer_of_quotations_alone_has_no_sentence_of_its_own(base):
    events, _ = await _events(base, WRONG)
    answer = events[-1].answer
    assert answer.status == "answered" and [s.origin for s in answer.sentences] == ["quote"]


async def test_each_model_call_is_recorded_with_its_tokens(base):
    events, llm = await _events(base, RIGHT)
    answer = events[-1].answer
    assert len(answer.model_calls) == llm.calls == 2  # the answer and its follow-up questions
    assert all(c.prompt_tokens > 100 and c.output_tokens > 0 for c in answer.model_calls)
    # the answer event, before the follow-ups, carries the calls made so far
    shown = next(ev.answer for ev in events if ev.kind == "answer")
    assert len(shown.model_calls) == 1
    assert any(isinstance(ev, StepEvent) and ev.step.tool == "write_answer" for ev in events)


async def test_the_verifier_is_asked_once_per_turn(base, monkeypatch):
    from tools.verification.verifier import ClaimVerifier

    calls = []
    real = ClaimVerifier.verify

    def counting(self, *args, **kwargs):
        calls.append(args[0])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ClaimVerifier, "verify", counting)
    # an uncited sentence is given its reference in the same call that checks the others
    events, _ = await _events(base, f"{RIGHT} Sights are burning, and eye consciousness is burning.")
    answer = events[-1].answer
    assert len(calls) == 1 and len(calls[0]) == 2
    assert "Sights are burning, and eye consciousness is burning [SN 35.28:" in answer.answer
