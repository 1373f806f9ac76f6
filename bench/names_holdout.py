"""The loose name ways checked on more names than aliases-dev: the other-translation titles table's own rows,
resolved with the table withheld (no row in the alias index, none among the cards' names) by the fuzzy-title
and Pali ways only (no card search: the cards' BM25 and name vectors were built with the table).

    SCHOLAR_INDEX_DIR=... python bench/names_holdout.py [OUT.json]

Prints hit@1, hit@4 and the share with no candidate over the table's distinct titles (a title several texts
share counts as found for any of them); OUT.json gets each title's first candidates.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections import defaultdict

from indexing.cards import name_rows
from indexing.settings import ScholarSettings
from indexing.text import fold
from tools.library import Library
from tools.search.aliases import AliasIndex
from tools.search.cards import CardIndex
from tools.search.names import NameMatcher


def main(out_path: str | None = None) -> dict:
    settings = ScholarSettings()
    lib = Library.open(settings)
    rows = name_rows(settings.titles_csv)
    table: dict[str, set[str]] = defaultdict(set)
    gold: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        table[r["sutta_id"]].add(fold(r["alias"]))
        gold[r["alias"]].add(r["sutta_id"])
    cards = {d: dataclasses.replace(c, names=[n for n in c.names if fold(n) not in table[c.sutta_id]])
             for d, c in lib.cards.cards.items()}
    aliases = AliasIndex.build(lib.docstore, settings.nicknames_csv, None, cards)
    matcher = NameMatcher(aliases, CardIndex(cards, None, None, None), lib.bridges)
    hit1 = hit4 = empty = 0
    out = []
    for alias, ids in gold.items():
        found = matcher.resolve(alias, None).candidates
        ranked = [c.sutta_id for c in found]
        first = bool(ranked) and ranked[0] in ids
        hit1 += first
        hit4 += bool(set(ranked[:4]) & ids)
        empty += not ranked
        out.append({"alias": alias, "gold": sorted(ids), "hit@1": first,
                    "candidates": [(c.sutta_id, c.score, c.how) for c in found[:4]]})
    n = len(gold)
    summary = {"n": n, "hit@1": round(hit1 / n, 4), "hit@4": round(hit4 / n, 4), "no_candidate": round(empty / n, 4)}
    print(json.dumps(summary))
    if out_path:
        with open(out_path, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1, ensure_ascii=False)
    return summary


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
