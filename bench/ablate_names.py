"""Does each loose way of matching a name pay on titles it was not written from? Each way switched off in turn.

    PYTHONPATH=. python bench/ablate_names.py --aliases ../shared/eval/aliases-dev.csv \
        [--json bench/out/ablate-names.json]

The rows are split by line parity as `bench/ablate.py` splits the question files (even lines fit, odd lines
report). For each variant — configured, then one of `tools.search.names.NameMatcher`'s ways off (fuzzy Pali title and
Pali text, fuzzy English title, semantic card; or the vocabulary bridges inside the fuzzy title match) — hit@1 and
hit@4 of each half, as `scholar eval aliases` scores them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from chat.evals.aliases import evaluate, load_aliases
from chat.evals.report import save_report
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.names import NameMatcher

WAYS = {"no fuzzy Pali title / Pali text": "_pali", "no fuzzy English title": "_fuzzy_title",
        "no semantic card": "_semantic"}


def _halves(report: dict) -> dict:
    rows = report["rows"]
    out = {}
    for half, part in (("fit", rows[0::2]), ("report", rows[1::2])):
        out[half] = {"n": len(part), "hit@1": round(statistics.fmean(r["hit@1"] for r in part), 3),
                     "hit@4": round(statistics.fmean(r["hit@4"] for r in part), 3)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--aliases", type=Path, required=True)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    library = Library.open(ScholarSettings())
    library.warm()
    rows = load_aliases(args.aliases)
    out: dict[str, dict] = {}
    variants: list[tuple[str, str | None]] = [("configured", None), *WAYS.items(), ("no bridges in names", "bridges")]
    for name, way in variants:
        saved = None
        if way == "bridges":
            library._names = NameMatcher(library.aliases, library.cards, None)
        elif way:
            saved = getattr(NameMatcher, way)
            setattr(NameMatcher, way, lambda self, *a, **kw: [])
        try:
            out[name] = _halves(evaluate(library, rows))
        finally:
            if saved is not None:
                setattr(NameMatcher, way, saved)
            library._names = None
        f = out[name]
        sys.stdout.write(f"{name:<34} hit@1 fit {f['fit']['hit@1']:.3f} / report {f['report']['hit@1']:.3f}  "
                         f"hit@4 fit {f['fit']['hit@4']:.3f} / report {f['report']['hit@4']:.3f}\n")
        sys.stdout.flush()
    if args.json:
        save_report(args.json, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
