"""Output grammars (GBNF) for the embedded model: what it may write is what the pipeline can check.

The ReAct reply is either one tool call with a JSON object of string or number arguments, or an answer whose every
sentence ends with references to the numbered passages the turn has shown ("... flood [1]."), and nothing else: a
number outside 1..n cannot be sampled, so the model cites only what it was shown. llama.cpp applies the grammar
while sampling; providers without grammars (Ollama) get the same rules in the prompt and the same checks after.
"""

from __future__ import annotations

from indexing.vocabulary import ABSTAIN_SENTENCE

# Code points outside English and Pali in Latin letters (with their diacritics, punctuation, dashes, quotes and
# arrows), as GBNF and Python regex ranges both read them: what no sentence of an answer may hold.
OTHER_SCRIPTS = r"\u0250-\u02ff\u0370-\u1dff\u1f00-\u1fff\u2070-\u218f\u2200-\U0010ffff"

MAX_SENTENCES = 4
MAX_REFS_PER_SENTENCE = 3

_JSON = r'''args ::= "{" pair ("," " "? pair)* "}"
pair ::= string ":" " "? value
value ::= string | [0-9]{1,3}
string ::= "\"" ([^"\\\n] | "\\" ["\\/nt])* "\""
'''

# A sentence: no line break, bracket or colon of its own (no "SN 36.6:3.1" written into the prose, where no check
# maps it), finished with its full stop, then its passage numbers. References allowed anywhere let the small model
# open a bracket mid-clause ("praised by the Buddha and is [3] in the text."), leaving two fragments.
# - A full stop followed by a space ends the sentence. With stops allowed inside, the model ran three sentences into
#   one 300-character "sentence" with one reference at its end, cut off mid-word ("its oldage. [2]"), and the checks
#   dropped the unreferenced sentences before it. "AN 3.36", "e.g." and "..." stay possible; ".T" does not.
# - It opens with a capital, a digit or a quotation mark: a lowercase start continued the sentence before the
#   references ("… meditation." [2] is the one that answers the question).
# - No parentheses or asterisks: what the model put in them was a copied heading ("SN 12.2 Analysis (Vibhaṅgasutta),
#   Linked Discourses (Saṁyutta Nikāya).", once per passage number) or markdown, never a claim.
# - No letter of another script: the Qwen model drifts into Chinese mid-answer ("…by the Buddha.，请问您还有其他
#   问题吗?") and into Cyrillic mid-word ("… solid, and аппro.").
_SENTENCE = r'''sentence ::= [A-Z0-9“"‘\u00c0-\u024f\u1e00-\u1eff] inner{5,299} [.!?] ["”’]? " " refs
inner ::= [^\n\[\]():*.!?OTHER] | [.!?] [0-9a-z.,;]
refs ::= "[" num "]" ("[" num "]"){0,%d}
'''.replace("OTHER", OTHER_SCRIPTS)


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _answer(n_passages: int, notes: bool) -> str:
    """`answer`: the abstain sentence, or sentences citing passages 1..n_passages."""
    abstain = _literal(ABSTAIN_SENTENCE)
    if n_passages <= 0:
        return f"answer ::= {abstain}\n"
    if notes:
        body = ('body ::= "# " [^\\n\\[\\]]{3,120} "\\n" section{1,6}\n'
                'section ::= "\\n## " [^\\n\\[\\]]{3,120} "\\n" paragraph{1,3}\n'
                'paragraph ::= sentence (" " sentence){0,4} "\\n"\n')
    else:
        body = f'body ::= sentence (" " sentence){{0,{MAX_SENTENCES - 1}}}\n'
    numbers = " | ".join(_literal(str(i)) for i in range(1, n_passages + 1))
    return (f"answer ::= {abstain} | body\n" + body + _SENTENCE % (MAX_REFS_PER_SENTENCE - 1)
            + f"num ::= {numbers}\n")


def react_grammar(tools: list[str], n_passages: int, notes: bool = False) -> str:
    """A Thought, then an Action with its input, or an Answer. With no passages shown yet, only a tool call or the
    abstain sentence is possible."""
    names = " | ".join(_literal(t) for t in tools)
    return ('root ::= "Thought: " [^\\n]{1,300} "\\n" (action | "Answer: " answer)\n'
            f'action ::= "Action: " ({names}) "\\nAction Input: " args\n' + _JSON + _answer(n_passages, notes))


def answer_grammar(n_passages: int, notes: bool = False) -> str:
    """The answer alone, without the ReAct frame: the direct answer when the agent's reply failed."""
    return "root ::= answer\n" + _answer(n_passages, notes)
