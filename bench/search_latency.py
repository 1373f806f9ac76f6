"""Hybrid search latency in-process: wall and CPU time of `search()` per question, and each stage's wall time.

    SCHOLAR_INDEX_DIR=... PYTHONPATH=. python bench/search_latency.py [--rounds 3] [--profile] QUESTIONS.jsonl ...

Each round empties the query-embedding cache first, so every figure includes embedding the question. The CPU time
(this thread's) is what the wall time approaches on an idle machine; on busy cores the wall time mostly measures
the wait for a core, so the load average is printed beside the figures. `--profile` prints cProfile's top
functions by own time.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.retriever import search


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    questions = []
    for path in args.questions:
        with open(path, encoding="utf-8") as fh:
            questions += [q["question"] for q in map(json.loads, filter(str.strip, fh)) if q.get("gold")]
    library = Library.open(ScholarSettings()).warm()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    load_before = os.getloadavg()
    walls, cpus, stages = [], [], {}
    for _ in range(args.rounds):
        library.clear_query_cache()
        for question in questions:
            wall, cpu = time.perf_counter(), time.thread_time()
            result = search(library, question, mode="hybrid")
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.thread_time() - cpu) * 1000)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    print(f"{len(walls)} searches; load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print(f"wall ms  p50 {_pct(walls, 0.5):6.1f}  p95 {_pct(walls, 0.95):6.1f}  max {max(walls):6.1f}")
    print(f"cpu ms   p50 {_pct(cpus, 0.5):6.1f}  p95 {_pct(cpus, 0.95):6.1f}  max {max(cpus):6.1f}")
    for stage, values in stages.items():
        print(f"  {stage:<10} wall p50 {_pct(values, 0.5):6.1f}  p95 {_pct(values, 0.95):6.1f}")


if __name__ == "__main__":
    main()
