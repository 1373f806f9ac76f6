"""Claims about the library's tables, checked against the tables rather than against sutta text.

"MN 1 has a parallel in MA 106" or "Bu Pc 10 is an offense entailing confession" can never be supported by a
passage's words: the facts are in SuttaCentral's table of parallels and in the Vinaya's rule index. The claim
verifier (tools/verification/verifier.py) asks `table_claim` first for every sentence: a sentence that makes such
a claim is supported when every ID it names as a parallel is in the table for the text it is about (and, for a
rule, when the class it names is the rule's), refuted when one is not; the usual checks judge any other sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tools.errors import ToolError
from tools.language.words import fold
from tools.references import asks_for_parallels, find_references

_CLASS = re.compile(r"offen[cs]e (?:entailing|of) ([a-z ]+?)(?=[.,;:)]|$| \[| for | under )")


@dataclass(frozen=True)
class TableClaim:
    holds: bool
    reason: str  # in the checks' words, for the trace


def check_table_claim(library, sentence: str, about: Sequence[str] = (), cited: Sequence[str] = ()) -> bool | None:
    """Whether a sentence's claim about the tables holds; None when it makes none."""
    found = table_claim(library, sentence, about, cited)
    return None if found is None else found.holds


def table_claim(library, sentence: str, about: Sequence[str] = (), cited: Sequence[str] = ()) -> TableClaim | None:
    """The tables' judgement of a sentence (its words, without its references), or None for a sentence that makes
    no claim about them. What a parallel is claimed of: the texts the sentence cites (`cited`, sutta IDs), else
    the first text it names, else what the answer is about (`about`)."""
    rule = _rule_claim(library, sentence, cited)
    if rule is not None:
        return rule
    return _parallels_claim(library, sentence, about, cited)


def _parallels_claim(library, sentence: str, about: Sequence[str], cited: Sequence[str]) -> TableClaim | None:
    from tools.texts.lookup import lookup
    from tools.texts.parallels import foreign_ids, sc_id

    foreign = foreign_ids(sentence)
    if not asks_for_parallels(sentence) and not foreign:
        return None
    held = [r.sutta_id for r in find_references(sentence) if r.sutta_id]
    subjects = list(dict.fromkeys(cited)) or held[:1] or list(about)
    claimed = [n for n in dict.fromkeys([*held, *foreign]) if n not in subjects]
    if not subjects or not claimed:
        return None
    table: set[str] = set()
    for subject in subjects:
        try:
            found = lookup(library, subject)
        except ToolError:  # an unknown text or no reference: nothing the table can say about it
            continue
        table |= {_norm(p.sutta_id if p.in_library else sc_id(p.uid or p.sutta_id)) for p in found.parallels}
    unlisted = [n for n in claimed if _norm(n) not in table]
    if not unlisted:
        return TableClaim(True, "in SuttaCentral's table of parallels")
    return TableClaim(False, f"SuttaCentral's table of parallels does not relate {unlisted[0]} to "
                             f"{' or '.join(subjects)}")


def _rule_claim(library, sentence: str, cited: Sequence[str]) -> TableClaim | None:
    m = _CLASS.search(fold(sentence))
    if m is None:
        return None
    refs = [r.sutta_id for r in find_references(sentence)] + list(cited)
    rules = [r for ref in refs if (r := library.rules.by_id(ref)) is not None]
    if not rules:
        return None
    claimed = m.group(1).strip()
    if any(fold(r.offence) == claimed or fold(r.offence).startswith(claimed) for r in rules):
        return TableClaim(True, "the rule's offence class in the Vinaya's rule index")
    return TableClaim(False, f"the rule index gives {rules[0].sutta_id} the class {rules[0].offence}")


def _norm(sutta_id: str) -> str:
    return sutta_id.replace(" ", "").lower()
