"""English rules have one home: word lists (and the follow-up grammar's patterns) live in indexing/data/english.toml,
sentence splitting in tools/language/ (its lowest layer, folding and the BM25 tokenizer, in indexing/text.py). A
newcomer adding a rule finds where it belongs, and a second copy of a list cannot drift from the first."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("indexing", "tools", "chat", "prompts")
LANGUAGE_HOME = ("tools/language/", "indexing/text.py")
MIN_WORDS = 8
_WORD = re.compile(r"[a-z][a-z'’.-]*(?::[a-z'’-]+)?")
# The collections' names in indexing/vocabulary.py are Pali titles written as regexes, not English words.
NOT_ENGLISH = {"indexing/vocabulary.py"}


def _words(values: list[str]) -> int:
    return sum(bool(_WORD.fullmatch(v)) for v in values)


def _all_words(text: str) -> bool:
    return _words(text.split()) >= MIN_WORDS and _words(text.split()) == len(text.split())


def word_lists(source: str) -> list[int]:
    """Lines where the source spells out a list of English words: a literal set, list or tuple of them, or a
    string of them split into words or handed to a function ("a an the ...".split(), tokenize(\"\"\"...\"\"\"))."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if _words(values) >= MIN_WORDS:
                found.append(node.lineno)
        elif isinstance(node, ast.Call):
            # a string split into words, or a string of many lines handed to a function; not a one-line message
            split = isinstance(node.func, ast.Attribute) and node.func.attr == "split"
            texts = [node.func.value] if split else [a for a in node.args if isinstance(a, ast.Constant)
                                                     and isinstance(a.value, str) and "\n" in a.value]
            if any(isinstance(t, ast.Constant) and isinstance(t.value, str) and _all_words(t.value) for t in texts):
                found.append(node.lineno)
    return found


# A pattern that splits text at a sentence's end: a look-behind for a full stop, or a stop followed by closing quotes
# or white space. "Does the sentence end here?" is answered in tools/language/sentences.py.
_SENTENCE_SPLIT = re.compile(r"\(\?<=\[[^\]]*[.!?]"  # a look-behind for a stop
                             r"|\[[^\]]*\.[^\]]*[!?][^\]]*\][+*]?(?:\[[^\]]*[”’][^\]]*\]\*|\\s|\\W\*\$)")


def is_sentence_regex(pattern: str) -> bool:
    return bool(_SENTENCE_SPLIT.search(pattern))


def sentence_regexes(source: str) -> list[int]:
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and is_sentence_regex(node.value)]


def python_files() -> list[Path]:
    return [p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))]


def test_no_word_list_is_spelled_out_in_code():
    offenders = {str(p.relative_to(REPO)): lines for p in python_files()
                 if str(p.relative_to(REPO)) not in NOT_ENGLISH and (lines := word_lists(p.read_text()))}
    assert offenders == {}


def test_sentences_are_split_only_in_the_language_home():
    offenders = {rel: lines for p in python_files()
                 if not (rel := str(p.relative_to(REPO))).startswith(LANGUAGE_HOME)
                 and (lines := sentence_regexes(p.read_text()))}
    assert offenders == {}


@pytest.mark.parametrize("source, lines", [
    ('STOP = {"a", "an", "and", "are", "as", "at", "be", "by"}\n', [1]),
    ('STOP = frozenset("a an and are as at be by".split())\n', [1]),
    ('X = tokenize("""say says said teach\n teaches taught tell tells""")\n', [1]),
    ('PAIRS = "led:lead taught:teach said:say went:go gone:go came:come gave:give saw:see".split()\n', [1]),
    ('FEW = {"a", "an", "and"}\nMSG = "The Index Is Missing: Run Make Index First Please"\n', []),
    ('log.info("%s %s", a, b)\n', []),
    ('fail("", "the answer stream ended without a final answer")\n', []),
])
def test_word_lists_are_recognised(source, lines):
    assert word_lists(source) == lines


@pytest.mark.parametrize("pattern, found", [
    (r"(?<=[.!?;:])\s+", True),
    (r"[.!?…]+[”’\"')]*", True),
    (r"[.!?…]\W*$", True),
    (r"\s+([.,;:!?])", False),  # a space before punctuation, not a sentence's end
])
def test_sentence_regexes_are_recognised(pattern, found):
    assert is_sentence_regex(pattern) is found


def test_every_list_and_pattern_in_the_data_file_is_used():
    data = tomllib.loads((REPO / "indexing" / "data" / "english.toml").read_text())
    names = [n for n in data if n != "patterns"] + list(data["patterns"])
    code = "\n".join(p.read_text() for p in python_files())
    assert [n for n in names if f'"{n}"' not in code] == []
