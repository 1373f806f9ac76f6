import re

import pytest

from prompts import PromptError, load_prompt, placeholders, raw_prompt

MINE = ["system", "react_header", "answer_rules", "notes_rules", "turn", "fallback_user", "fallback_continue",
        "followups"]


@pytest.mark.parametrize("name", MINE)
def test_each_template_fills_completely(name):
    values = {p: f"<{p}>" for p in placeholders(name)}
    text = load_prompt(name, **values)
    assert not re.search(r"\{[a-z_][a-z0-9_]*\}", text), "a placeholder was left unfilled"
    for p in placeholders(name):
        assert f"<{p}>" in text


def test_missing_value_fails_loudly():
    with pytest.raises(PromptError, match="needs values"):
        load_prompt("followups", question="q", answer="a", sources="s")  # no count


def test_unknown_value_fails_loudly():
    with pytest.raises(PromptError, match="no placeholder"):
        load_prompt("turn", question="q", hints="", extra="x")


def test_unknown_template_fails_loudly():
    with pytest.raises(PromptError, match="no prompt template"):
        load_prompt("no_such_prompt")


def test_json_examples_survive_formatting():
    text = load_prompt("react_header", rules="R", tool_desc="T", tool_names="a, b", answer_rules="A")
    assert '{"name": "Discourse on Loving-kindness"}' in text
    assert '{"ref": "MN 21:20.1", "after": 2}' in text


def test_values_are_not_reformatted():
    # A value that itself looks like a placeholder is inserted literally, not substituted again.
    assert "{hints}" in load_prompt("turn", question="{hints}", hints="")


def test_react_header_has_domain_examples_not_stock_ones():
    header = raw_prompt("react_header")
    assert "hello world" not in header and "num_beams" not in header
    for tool in ("resolve_alias", "lookup_sutta", "search_passages", "expand_context"):
        assert f"Action: {tool}" in header


def test_answer_rules_carry_the_abstention_sentence_and_citation_form():
    for name in ("system", "answer_rules", "notes_rules"):
        assert "I don't find this in the texts I have" in raw_prompt(name)
    assert "[2]" in raw_prompt("answer_rules")  # passages are cited by their numbers; code maps them to references
