"""`scholar eval retrieval`: hit@1/5/10, recall@10, MRR and latency of the search tool, per mode and per kind.

Hits are counted by sutta: the suttas of the top-k passages in rank order, each counted once (a deduplicated
stock passage counts for every sutta in its `also_in`, since it is their text too); a question's gold is its
`gold` plus `also_relevant`. Recall@10 is the share of the `gold` suttas found. Questions with no gold
(unanswerable) are skipped. Each mode starts with an empty query-embedding cache, so latency includes embedding.
"""

from __future__ import annotations

import json
import logging
import statistics
import sys
import time
from pathlib import Path

from chat.evals.report import save_report
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.retriever import MODEL_MODES, MODES, search
from tools.search.text_judge import TextJudge

log = logging.getLogger(__name__)

METRICS = ("hit@1", "hit@5", "hit@10", "recall@10", "mrr", "latency_ms_p50", "latency_ms_p95")


def load_questions(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc
    return rows


def ranked_suttas(passages) -> list[str]:
    out: list[str] = []
    for p in passages:
        for sid in [p.sutta_id, *p.also_in]:
            if sid and sid not in out:
                out.append(sid)
    return out


def score_question(suttas: list[str], gold: list[str], also: list[str], k: int) -> dict:
    accept = set(gold) | set(also)
    rank = next((i for i, s in enumerate(suttas, 1) if s in accept), None)
    top = suttas[:k]
    return {
        "hit@1": float(rank is not None and rank <= 1),
        "hit@5": float(rank is not None and rank <= 5),
        "hit@10": float(rank is not None and rank <= 10),
        "recall@10": sum(1 for g in gold if g in suttas[:10]) / len(gold),
        "mrr": 1.0 / rank if rank and rank <= k else 0.0,
        "rank": rank,
        "top": top,
    }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[idx]


def aggregate(rows: list[dict]) -> dict:
    if not rows:
        return {m: 0.0 for m in METRICS} | {"n": 0}
    out = {m: round(statistics.fmean(r[m] for r in rows), 4) for m in ("hit@1", "hit@5", "hit@10", "recall@10", "mrr")}
    lat = [r["latency_ms"] for r in rows]
    out["latency_ms_p50"] = round(_percentile(lat, 0.5), 1)
    out["latency_ms_p95"] = round(_percentile(lat, 0.95), 1)
    out["n"] = len(rows)
    return out


def evaluate_mode(library: Library, questions: list[dict], mode: str, k: int, judge: TextJudge | None = None) -> dict:
    library.clear_query_cache()
    rows = []
    for q in questions:
        started = time.perf_counter()
        result = search(library, q["question"], k=k, mode=mode, judge=judge if mode in MODEL_MODES else None)
        elapsed = (time.perf_counter() - started) * 1000
        row = score_question(ranked_suttas(result.passages), q["gold"], q.get("also_relevant") or [], k)
        row.update(id=q.get("id"), kind=q.get("kind", "?"), latency_ms=elapsed, gold=q["gold"])
        rows.append(row)
    kinds = sorted({r["kind"] for r in rows})
    report = aggregate(rows)
    report["by_kind"] = {kind: aggregate([r for r in rows if r["kind"] == kind]) for kind in kinds}
    report["misses"] = [
        {"id": r["id"], "kind": r["kind"], "gold": r["gold"], "rank": r["rank"], "top": r["top"][:5]}
        for r in rows if not r["hit@1"]
    ]
    return report


def _modes(arg: str) -> list[str]:
    if arg == "all":  # the modes of the search alone; a mode with the model is asked for by name
        return [m for m in MODES if m not in MODEL_MODES]
    modes = [m.strip() for m in arg.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ValueError(f"unknown mode(s) {bad}; choose from {', '.join(MODES)} or all")
    return modes


def format_table(results: dict[str, dict]) -> str:
    head = f"{'mode':<15}{'kind':<13}{'n':>4}" + "".join(f"{m.replace('latency_ms_', 'ms '):>11}" for m in METRICS)
    lines = [head, "-" * len(head)]
    for mode, rep in results.items():
        for kind, figures in [("all", rep), *rep["by_kind"].items()]:
            cells = "".join(f"{figures[m]:>11.3f}" if "latency" not in m else f"{figures[m]:>11.1f}" for m in METRICS)
            lines.append(f"{mode if kind == 'all' else '':<15}{kind:<13}{figures['n']:>4}{cells}")
    return "\n".join(lines)


def run(args, settings: ScholarSettings, library: Library | None = None) -> int:
    """One question file: the table and JSON as always. Several (`--questions A B`): a table per file and a JSON
    object {"files": {file stem: that file's report}} — questions in the translation's words and in readers'
    words are read side by side, not averaged into one figure."""
    paths = args.questions if isinstance(args.questions, list) else [args.questions]
    modes = _modes(args.mode)
    library = library or Library.open(settings)
    if library.dense_error:
        log.warning("dense side unavailable (%s): dense and hybrid figures are BM25 fallbacks", library.dense_error)
    library.warm()
    search(library, "warm-up query about the four noble truths", k=args.k, mode="hybrid")
    judge = _judge(settings) if any(m in MODEL_MODES for m in modes) else None
    payloads = {}
    for path in paths:
        questions = [q for q in load_questions(path) if q.get("gold")]
        results = {mode: evaluate_mode(library, questions, mode, args.k, judge) for mode in modes}
        sys.stdout.write(f"retrieval eval: {len(questions)} questions with gold, k={args.k}, {path}\n")
        sys.stdout.write(format_table(results) + "\n")
        payloads[path.stem] = _payload(results, modes)
    if "hybrid+rerank" in modes:
        log.info("reranker for hybrid+rerank: %s", library.reranker().name)
    if args.json_out:
        payload = next(iter(payloads.values())) if len(paths) == 1 else {"files": payloads}
        save_report(args.json_out, payload)
        sys.stdout.write(f"wrote {args.json_out}\n")
    return 0


def _judge(settings: ScholarSettings) -> TextJudge | None:
    """The configured model as the text judge; None (the judged mode is then hybrid) when it cannot score tokens."""
    from chat.providers.select import build_llm

    llm = build_llm(settings)
    if not hasattr(llm, "continuation_logprobs"):
        log.warning("%s cannot score a question's tokens: hybrid+judge is hybrid here", type(llm).__name__)
        return None
    return TextJudge(llm)


def _payload(results: dict[str, dict], modes: list[str]) -> dict:
    main = results.get("hybrid") or next(iter(results.values()))
    payload = {m: main[m] for m in METRICS} | {"by_kind": main["by_kind"], "n": main["n"]}
    if len(results) > 1:
        payload["modes"] = results
    else:
        payload["mode"] = modes[0]
        payload["misses"] = main["misses"]
    return payload
