"""Output grammars (GBNF) for the embedded model: what it may write is what the pipeline can check.

The ReAct reply is either one tool call with a JSON object of string or number arguments, or an answer whose every
sentence ends with references to the numbered passages the turn has shown ("... flood [1]."), and nothing else: a
number outside 1..n cannot be sampled, so the model cites only what it was shown. llama.cpp applies the grammar
while sampling; providers without grammars (Ollama) get the same rules in the prompt and the same checks after.
"""

from __future__ import annotations

from indexing.vocabulary import ABSTAIN_SENTENCE

MAX_SENTENCES = 6
MAX_REFS_PER_SENTENCE = 3


def _alternatives(items: list[str]) -> str:
    return " | ".join(_literal(i) for i in items)


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _numbers(n: int) -> str:
    return _alternatives([str(i) for i in range(1, n + 1)])


_JSON = r'''
args ::= "{" pair ("," " "? pair)* "}"
pair ::= string ":" " "? value
value ::= string | [0-9]{1,3}
string ::= "\"" ([^"\\\n] | "\\" ["\\/nt])* "\""
'''

# A sentence: no line break, no bracket of its own, then its references; "I" and quotes may open it.
_SENTENCE = r'''
sentence ::= [^\n\[\] ] [^\n\[\]]{6,400} " " refs "."?
refs ::= "[" num "]" ("[" num "]"){0,%d}
'''


def react_grammar(tools: list[str], n_passages: int, notes: bool = False) -> str:
    """A Thought, then an Action with its input, or an Answer citing passages 1..n_passages (the abstain sentence
    needs none). With no passages shown yet, only a tool call or the abstain sentence is possible."""
    head = 'root ::= "Thought: " [^\\n]{1,300} "\\n" (action | answer)\n'
    action = f'action ::= "Action: " ({_alternatives(tools)}) "\\nAction Input: " args\n'
    abstain = _literal(ABSTAIN_SENTENCE)
    if n_passages <= 0:
        return head + action + f'answer ::= "Answer: " {abstain}\n' + _JSON
    if notes:
        body = ('body ::= "# " [^\\n\\[\\]]{3,120} "\\n" section{1,6}\n'
                'section ::= "\\n## " [^\\n\\[\\]]{3,120} "\\n" paragraph{1,3}\n'
                'paragraph ::= sentence (" " sentence){0,4} "\\n"\n')
    else:
        body = f'body ::= sentence (" " sentence){{0,{MAX_SENTENCES - 1}}}\n'
    return (head + action + f'answer ::= "Answer: " ({abstain} | body)\n' + body + _JSON
            + _SENTENCE % (MAX_REFS_PER_SENTENCE - 1) + f"num ::= {_numbers(n_passages)}\n")
