"""`scholar eval aliases`: how often the alias resolver puts the right sutta first (hit@1) or in its top four (hit@4).

The file is a CSV with `alias,sutta_id` (more columns are kept in the report). Each alias is resolved alone, as
the agent's `resolve_alias` tool would receive it; the report lists every row's candidates with how each matched,
and the share of rows that got no candidate at all (a resolver that says "I don't know" is better than a wrong
sutta, so the two failures are counted apart).
"""

from __future__ import annotations

import csv
import logging
import statistics
import sys
import time
from pathlib import Path

from chat.evals.report import save_report
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.names import resolve_name as resolve_alias

log = logging.getLogger(__name__)

TOP = 4


def load_aliases(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if (r.get("alias") or "").strip() and (r.get("sutta_id") or "").strip()]
    if not rows:
        raise ValueError(f"{path}: no rows with `alias` and `sutta_id`")
    return rows


def score_row(row: dict, candidates: list[dict]) -> dict:
    gold = {s.strip() for s in row["sutta_id"].replace(";", ",").split(",") if s.strip()}
    ids = [c["sutta_id"] for c in candidates]
    rank = next((i for i, s in enumerate(ids, 1) if s in gold), None)
    return {
        "alias": row["alias"],
        "gold": sorted(gold),
        "rank": rank,
        "hit@1": float(rank == 1),
        f"hit@{TOP}": float(rank is not None and rank <= TOP),
        "empty": not candidates,
        "candidates": candidates[:TOP],
    }


def evaluate(library: Library, rows: list[dict]) -> dict:
    scored, times = [], []
    for row in rows:
        started = time.perf_counter()
        resolution = resolve_alias(library, row["alias"])
        times.append((time.perf_counter() - started) * 1000)
        candidates = [
            {"sutta_id": c.sutta_id, "title": c.title, "score": round(c.score, 1), "how": c.how, "via": c.alias}
            for c in resolution.candidates
        ]
        scored.append(score_row(row, candidates) | {"source_url": row.get("source_url", "")})
    n = len(scored)
    ordered = sorted(times)
    return {
        "n": n,
        "hit@1": round(sum(r["hit@1"] for r in scored) / n, 4),
        f"hit@{TOP}": round(sum(r[f"hit@{TOP}"] for r in scored) / n, 4),
        "no_candidate": round(sum(r["empty"] for r in scored) / n, 4),
        "wrong_first": round(sum(1 for r in scored if not r["empty"] and not r["hit@1"]) / n, 4),
        "latency_ms_p50": round(statistics.median(times), 2),
        "latency_ms_p95": round(ordered[min(n - 1, round(0.95 * (n - 1)))], 2),
        "by_how": _by_how(scored),
        "rows": scored,
    }


def _by_how(rows: list[dict]) -> dict:
    """hit@1 per way the first candidate matched: shows which mechanism earns (or costs) what."""
    out: dict[str, dict] = {}
    for r in rows:
        how = r["candidates"][0]["how"] if r["candidates"] else "none"
        slot = out.setdefault(how, {"n": 0, "hit@1": 0.0})
        slot["n"] += 1
        slot["hit@1"] += r["hit@1"]
    return {k: {"n": v["n"], "hit@1": round(v["hit@1"] / v["n"], 3)} for k, v in sorted(out.items())}


def format_report(report: dict, path: Path) -> str:
    lines = [f"alias eval: {report['n']} aliases, {path}",
             f"hit@1 {report['hit@1']:.3f}   hit@{TOP} {report[f'hit@{TOP}']:.3f}   no candidate "
             f"{report['no_candidate']:.3f}   wrong first {report['wrong_first']:.3f}   "
             f"ms p50 {report['latency_ms_p50']:.1f}   p95 {report['latency_ms_p95']:.1f}",
             "first candidate by how it matched: "
             + ", ".join(f"{k} {v['hit@1']:.2f} of {v['n']}" for k, v in report["by_how"].items())]
    for r in report["rows"]:
        mark = "ok " if r["hit@1"] else ("~  " if r[f"hit@{TOP}"] else "-- ")
        cands = "; ".join(f"{c['sutta_id']} ({c['how']} {c['score']:.0f})" for c in r["candidates"]) or "nothing"
        lines.append(f"{mark}{r['alias']!r} -> {', '.join(r['gold'])}: {cands}")
    return "\n".join(lines)


def run(args, settings: ScholarSettings, library: Library | None = None) -> int:
    rows = load_aliases(args.aliases)
    library = library or Library.open(settings)
    library.warm()
    resolve_alias(library, "warm-up name")
    report = evaluate(library, rows)
    sys.stdout.write(format_report(report, args.aliases) + "\n")
    if args.json_out:
        save_report(args.json_out, report)
        sys.stdout.write(f"wrote {args.json_out}\n")
    return 0
