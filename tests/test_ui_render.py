"""The chat's pure rendering helpers: escaping, unsupported-sentence marks, input checks, side-panel Markdown."""

from __future__ import annotations

import json
import re

import pytest

from chat.pipeline.answer import Answer, Citation, TraceStep
from chat.ui.render import (
    check_input,
    escape_answer,
    escape_corpus,
    follow_up_label,
    passage_markdown,
    render_answer,
    step_output,
    trace_json,
)
from indexing.vocabulary import WARNING_ICON

from scholar_helpers import scholar_for

HOSTILE = ('Burning <script>alert(1)</script> <img src=x onerror="alert(2)"> ![x](http://evil/x.png) '
           '[go](javascript:alert(3))')


def _no_live_markup(md: str) -> None:
    """No unescaped '<', '[' or ']' remains: Markdown cannot form HTML, links or images from the text."""
    unescaped = re.findall(r"(?<!\\)[<\[\]]", md.replace("\\\\", ""))
    assert unescaped == [], md


def test_answer_escape_makes_markup_inert_and_streams_consistently():
    escaped = escape_answer(HOSTILE)
    _no_live_markup(escaped)
    # Escaping token by token gives the same text as escaping the whole (streamed tokens stay correct).
    pieces = [HOSTILE[i:i + 3] for i in range(0, len(HOSTILE), 3)]
    assert "".join(escape_answer(p) for p in pieces) == escaped
    # a backslash in model text cannot un-escape the bracket after it
    assert escape_answer("\\[x](y)") == "\\\\\\[x\\](y)"


def test_corpus_escape_neutralises_markdown_and_table_pipes():
    escaped = escape_corpus("a | b **c** <img onerror=x> `d`\nnext line")
    assert "\n" not in escaped
    assert "\\|" in escaped and "\\*\\*c\\*\\*" in escaped and "\\<img" in escaped and "\\`d\\`" in escaped


def test_check_input_refuses_empty_and_overlong():
    assert check_input("   \n", 2000) is not None
    message = check_input("x" * 2001, 2000)
    assert message is not None and "2,000" in message and "2,001" in message
    assert check_input("What is burning?", 2000) is None
    assert check_input("x" * 2000, 2000) is None


UNSUPPORTED = "The Buddha then flew over the ocean to the city of gold"


@pytest.fixture(scope="module")
def checked_answer(tmp_path_factory) -> Answer:
    """What the Scholar really returns for a draft with one sentence the cited passage does not hold."""
    reply = (f"Thought: I can answer.\nAnswer: Mendicants, all is burning [SN 35.28:1.3]. {UNSUPPORTED} "
             "[SN 35.28:2.1].")
    scholar, _ = scholar_for(tmp_path_factory.getbasetemp() / "agent-index", [reply, "What is the all?\nWhy?"])
    return scholar.ask("What does the Fire Sermon say is burning?")


def test_render_lists_the_removed_sentence_with_its_reason_below_a_clean_answer(checked_answer):
    [flagged] = checked_answer.unsupported_claims
    assert flagged.sentence == f"{UNSUPPORTED}."  # the verifier's sentence: its citations taken out
    md = render_answer(checked_answer)
    body, notes = md.split("\n\n> " + WARNING_ICON, 1)
    # the pipeline took the sentence out: no mark, no fragment in the answer itself
    assert UNSUPPORTED not in body and "⚠ unsupported" not in body and WARNING_ICON not in body
    assert notes.startswith(" **Not supported by the cited passages**")
    assert f"“{UNSUPPORTED}.” — The cited lines do not say this; removed from the answer" in notes
    assert "missing" not in notes  # never the checks' stemmed words
    # citations stay as plain text names (Chainlit links element names, a chip each), without brackets around them
    assert "burning SN 35.28:1.3." in md and "[SN 35.28:1.3]" not in md.replace("\\", "")
    assert "**Sources:** SN 35.28:1.3 · SN 35.28:1.3–2.1" in md  # the answer's own, then the quoted evidence


def test_a_replaced_sentence_says_so(checked_answer):
    claim = checked_answer.unsupported_claims[0].model_copy(update={"revised_to": "In SN 35.28 the text reads: …"})
    md = render_answer(checked_answer.model_copy(update={"unsupported_claims": [claim]}))
    assert "replaced in the answer by the passage's own words" in md


def test_render_failed_and_abstained_say_so():
    failed = render_answer(Answer(answer="", status="failed",
                                  error="Ollama is not running: start it with `ollama serve`.",
                                  citations=[Citation(ref="SN 35.28:1.3", sutta_id="SN 35.28")]))
    assert "could not answer" in failed and "ollama serve" in failed and "Passages found" in failed
    abstained = render_answer(Answer(answer="The texts indexed here do not say.", status="abstained"))
    assert "will not guess" in abstained


def test_render_escapes_model_html():
    md = render_answer(Answer(answer=HOSTILE))
    _no_live_markup(md)


def test_step_output_is_escaped_with_duration_and_error():
    step = TraceStep(tool="search_passages", input={"query": "burning"},
                     output_summary="1. SN 35.28:1.3 bm25=7.1 dense=0.62 fused=0.032 <script>x</script>",
                     duration_ms=1234.0, error="ToolError: <b>bad</b>")
    out = step_output(step)
    assert "bm25=7\\.1" in out and "1,234 ms" in out
    assert "**Error:**" in out
    _no_live_markup(out.replace("**Error:**", ""))


def test_trace_json_round_trips():
    answer = Answer(answer="All is burning.", trace=[TraceStep(tool="lookup_sutta", input={"sutta_id": "SN 35.28"})])
    data = json.loads(trace_json(answer, "What burns?"))
    assert data["question"] == "What burns?" and data["trace"][0]["tool"] == "lookup_sutta"


def test_follow_up_label_is_short():
    assert len(follow_up_label("why " * 100)) <= 90


def test_passage_markdown_highlights_cited_rows_and_escapes():
    md = passage_markdown(
        Citation(ref="SN 35.28:1.3", sutta_id="SN 35.28", title="Burning"),
        title="Burning", collection="SN",
        rows=[("SN 35.28:1.1", "At one time <img src=x onerror=alert(1)>", "ekaṁ samayaṁ", False),
              ("SN 35.28:1.3", "Mendicants, all is burning.", "Sabbaṁ, bhikkhave, ādittaṁ.", True)],
    )
    lines = md.splitlines()
    assert lines[0].startswith("### SN 35\\.28:1\\.3 — Burning")
    cited = [line for line in lines if "▶" in line]
    assert len(cited) == 1 and "**Mendicants, all is burning\\.**" in cited[0] and "ādittaṁ" in cited[0]
    assert "\\<img" in md and "<img" not in md.replace("\\<img", "")


def test_check_input_refuses_lone_surrogates():
    assert "not valid text" in check_input("What is burning? \ud800", 300)
