"""Settings read from the environment the way the README writes them."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("value, keys", [("", []), ("  ", []), ("a,b", ["a", "b"]), ('["a", "b"]', ["a", "b"]),
                                         ("a, ,b ", ["a", "b"])])
def test_list_settings_read_from_the_environment(monkeypatch, value, keys):
    from indexing.settings import ScholarSettings

    monkeypatch.setenv("SCHOLAR_API_KEYS", value)
    monkeypatch.setenv("SCHOLAR_TRUSTED_PROXIES", value)
    settings = ScholarSettings(_env_file=None)
    assert settings.api_keys == keys and settings.trusted_proxies == keys


# ---- values that cannot be used stop the program with one line naming the variable ---------------------------


def _error(monkeypatch, **env: str) -> str:
    from indexing.errors import SettingsInvalidError
    from indexing.settings_doc import load_settings

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsInvalidError) as caught:
        load_settings(_env_file=None)
    return str(caught.value)


@pytest.mark.parametrize("value", [" , , ", '[""]', '["  ", ""]', ","])
def test_api_keys_that_name_no_key_are_refused(monkeypatch, value):
    # Read as "no keys", these ran an API open to everyone although keys were clearly meant.
    message = _error(monkeypatch, SCHOLAR_API_KEYS=value)
    assert message.startswith("SCHOLAR_API_KEYS") and "names nothing" in message and "\n" not in message


def test_a_refused_api_key_is_not_repeated_in_the_message(monkeypatch):
    message = _error(monkeypatch, SCHOLAR_API_KEYS='["secret-key", 5]')
    assert "secret-key" not in message and message.startswith("SCHOLAR_API_KEYS:")


@pytest.mark.parametrize("variable, value, expected", [
    ("SCHOLAR_API_KEYS", "[not json", "not a JSON list"),
    ("SCHOLAR_API_SEARCH_RATE", "ten", "a whole number"),
    ("SCHOLAR_OLLAMA_REQUEST_TIMEOUT", "soon", "a number"),
    ("SCHOLAR_VERIFIER_MODE", "llm", "one of `local`, `judge`"),
    ("SCHOLAR_CORPUS_PATHS", '["a", ', "not a JSON list"),
    ("OLLAMA_HOST", "[1]", None),  # a string setting takes any text: no error
])
def test_unparsable_settings_name_the_variable_and_the_form(monkeypatch, variable, value, expected):
    from indexing.settings_doc import load_settings

    if expected is None:
        monkeypatch.setenv(variable, value)
        load_settings(_env_file=None)
        return
    message = _error(monkeypatch, **{variable: value})
    assert message.startswith(variable) and expected in message and "\n" not in message
    assert "pydantic" not in message and "Traceback" not in message


@pytest.mark.parametrize("variable, value", [
    ("SCHOLAR_API_QUERY_RATE", "-1"), ("SCHOLAR_API_SEARCH_RATE", "-5"), ("SCHOLAR_API_READ_TIMEOUT", "-1"),
    ("SCHOLAR_API_READ_TIMEOUT", "0"), ("SCHOLAR_OLLAMA_FIRST_TOKEN_TIMEOUT", "0"),
    ("SCHOLAR_OLLAMA_CONNECT_TIMEOUT", "-3"), ("SCHOLAR_OLLAMA_DEAD_FOR_S", "-1"), ("SCHOLAR_RETRIEVAL_K", "0"),
    ("SCHOLAR_AGENT_MAX_STEPS", "0"), ("SCHOLAR_LLM_MAX_TOKENS", "0"), ("SCHOLAR_MAX_INPUT_CHARS", "-1"),
    ("SCHOLAR_API_MAX_QUERY_CHARS", "0"), ("SCHOLAR_MMR_LAMBDA", "1.5"), ("SCHOLAR_LLM_THREADS", "0"),
    ("SCHOLAR_EMBED_BATCH_SIZE", "0"), ("SCHOLAR_BM25_WEIGHT", "-1"),
])
def test_nonsense_numbers_are_refused(monkeypatch, variable, value):
    message = _error(monkeypatch, **{variable: value})
    assert message.startswith(f"{variable}={value!r}: expected ") and "\n" not in message


def test_a_chunk_ceiling_below_the_target_is_refused(monkeypatch):
    message = _error(monkeypatch, SCHOLAR_CHUNK_MAX_CHARS="500", SCHOLAR_CHUNK_TARGET_CHARS="700")
    assert "SCHOLAR_CHUNK_MAX_CHARS" in message and "SCHOLAR_CHUNK_TARGET_CHARS" in message


def test_a_rate_of_zero_is_the_documented_off_switch(monkeypatch):
    from chat.api.security import SlidingWindowLimiter
    from indexing.settings_doc import load_settings

    monkeypatch.setenv("SCHOLAR_API_QUERY_RATE", "0")
    settings = load_settings(_env_file=None)
    limiter = SlidingWindowLimiter(settings.api_query_rate)
    assert all(limiter.hit("client") is None for _ in range(100))
    description = type(settings).model_fields["api_query_rate"].description or ""
    assert "0 turns the limit off" in description


def test_every_problem_is_one_line(monkeypatch):
    message = _error(monkeypatch, SCHOLAR_API_SEARCH_RATE="ten", SCHOLAR_API_READ_TIMEOUT="-1")
    lines = message.splitlines()
    assert len(lines) == 2 and {line.split("=")[0] for line in lines} == {"SCHOLAR_API_SEARCH_RATE",
                                                                          "SCHOLAR_API_READ_TIMEOUT"}


@pytest.mark.parametrize("argv", [["stats"], ["ask", "What is burning?"], ["serve"], ["chat"], ["ingest"],
                                  ["models", "status"], ["eval", "claims", "--claims", "none.jsonl"]])
def test_every_command_stops_with_exit_2_on_a_bad_setting(monkeypatch, caplog, argv):
    from chat.cli.main import main

    monkeypatch.setenv("SCHOLAR_API_SEARCH_RATE", "ten")
    monkeypatch.setenv("SCHOLAR_INDEX_DIR", "/nonexistent/index")  # nothing may start before the check
    assert main(argv) == 2
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors == ["SCHOLAR_API_SEARCH_RATE='ten': expected a whole number ≥ 0"]


def test_the_command_line_prints_one_line_and_no_traceback(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "SCHOLAR_API_KEYS": "[not json", "PYTHONPATH": str(repo)}
    done = subprocess.run([sys.executable, "-m", "chat.cli", "stats"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["ERROR scholar: SCHOLAR_API_KEYS: not a JSON list (Expecting value at "
                                                "character 1)"]


# ---- docs/settings.md ------------------------------------------------------------------------------------------


def test_the_settings_page_is_generated_from_the_settings():
    from pathlib import Path

    from indexing.settings_doc import render_markdown

    page = Path(__file__).resolve().parent.parent / "docs" / "settings.md"
    assert page.read_text(encoding="utf-8") == render_markdown(), \
        "docs/settings.md is stale: python -m indexing.settings_doc > docs/settings.md"


def test_every_setting_says_what_it_means():
    from indexing.settings import ScholarSettings

    assert [name for name, f in ScholarSettings.model_fields.items() if not (f.description or "").strip()] == []


def test_the_verifier_default_is_documented_as_the_code_has_it():
    from indexing.settings import ScholarSettings
    from indexing.settings_doc import render_markdown

    default = ScholarSettings.model_fields["verifier_mode"].default
    row = next(line for line in render_markdown().splitlines() if line.startswith("| `SCHOLAR_VERIFIER_MODE`"))
    assert row.split("|")[2].strip() == f"`{default}`" == "`judge`"
