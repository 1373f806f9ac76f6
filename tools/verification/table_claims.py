"""Claims about the library's tables, checked against the tables rather than against sutta text.

"MN 1 has a parallel in MA 106" or "Bu Pc 10 is an offense entailing confession" can never be supported by a
passage's words: the facts are in SuttaCentral's table of parallels and in the Vinaya's rule index. A sentence
that makes such a claim is checked here: supported when every ID it names as a parallel is in the table for the
text it is about (and, for a rule, when the class it names is the rule's), refuted when one is not.

`check_table_claim(library, sentence, about)` returns True, False, or None for a sentence that makes no table
claim (the usual checks then apply). It is meant to be called first by the answer's sentence checks.
"""

from __future__ import annotations

import re

from tools.errors import ToolError
from tools.language.words import fold
from tools.references import asks_for_parallels, find_references

_CLASS = re.compile(r"offen[cs]e (?:entailing|of) ([a-z ]+?)(?=[.,;:)]|$| \[| for | under )")


def check_table_claim(library, sentence: str, about: list[str] | tuple[str, ...] = ()) -> bool | None:
    """Whether a sentence's claim about the tables holds. `about`: the texts the answer is about (sutta IDs such
    as `MN 1`), used when the sentence names no text of the library itself."""
    rule = _rule_claim(library, sentence)
    if rule is not None:
        return rule
    return _parallels_claim(library, sentence, about)


def _parallels_claim(library, sentence: str, about) -> bool | None:
    from tools.texts.lookup import lookup
    from tools.texts.parallels import foreign_ids, sc_id

    foreign = foreign_ids(sentence)
    held = [r.sutta_id for r in find_references(sentence)]
    if not asks_for_parallels(sentence) and not foreign:
        return None
    subjects = [s for s in dict.fromkeys([*held, *about])]
    if not subjects or not (foreign or len(held) > 1):
        return None
    named = set(foreign) | set(held)
    table: set[str] = set()
    for subject in subjects:
        try:
            found = lookup(library, subject)
        except ToolError:  # an unknown text or no reference: nothing the table can say about it
            continue
        table |= {p.sutta_id if p.in_library else sc_id(p.uid or p.sutta_id) for p in found.parallels}
        table.add(subject)
    claimed = {n for n in named if n not in subjects or n in foreign}
    if not claimed:
        return None
    return all(_norm(n) in {_norm(t) for t in table} for n in claimed)


def _rule_claim(library, sentence: str) -> bool | None:
    m = _CLASS.search(fold(sentence))
    if m is None:
        return None
    refs = [r.sutta_id for r in find_references(sentence)]
    rules = [r for ref in refs if (r := library.rules.by_id(ref)) is not None]
    if not rules:
        return None
    claimed = m.group(1).strip()
    return any(fold(r.offence) == claimed or fold(r.offence).startswith(claimed) for r in rules)


def _norm(sutta_id: str) -> str:
    return sutta_id.replace(" ", "").lower()


def with_table_facts(library, report, about: list[str] | tuple[str, ...] = ()):
    """A verification report whose sentences about the tables are judged by the tables: a table fact the passages
    could not support stands, a claim the table contradicts falls. Other sentences keep their verdicts."""
    from dataclasses import replace

    from tools.verification.verifier import Finding

    verdicts = []
    for v in report.verdicts:
        holds = check_table_claim(library, v.sentence, about)
        if holds is True and v.flagged:
            v = replace(v, verdict="supported", reason="a fact of SuttaCentral's table", idle_citations=[],
                        pointer=False, parts=[], finding=Finding.SUPPORTED)
        elif holds is False and not v.flagged:
            v = replace(v, verdict="unsupported", reason="SuttaCentral's table says otherwise",
                        finding=Finding.NOT_IN_TEXT)
        verdicts.append(v)
    return replace(report, verdicts=verdicts)
