"""Query-side cost of the local embedding backends: CPU milliseconds to embed one question, as a query process does.

    HF_HUB_OFFLINE=1 PYTHONPATH=. python bench/query_embed.py [--backends onnx,onnx-int8] [--rounds 3] FILE.jsonl ...

Each backend is loaded the way `Library.open` loads it (`build_embed_model(settings, threads=settings.query_threads)`)
and embeds every question of the given eval files one at a time. Backends alternate question by question (and the
order flips each round), so a machine whose load changes during the run charges every backend alike. Reported per
backend: the median and 90th percentile of CPU ms per question over all rounds, and the CPU seconds of loading
the model once its export exists and the libraries are imported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from indexing.embeddings import build_embed_model
from indexing.settings import ScholarSettings


def questions(files: list[Path]) -> list[str]:
    out: list[str] = []
    for path in files:
        for line in path.read_text().splitlines():
            if line.strip():
                out.append(json.loads(line)["question"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--backends", default="onnx,onnx-int8")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "query-embed.json")
    args = parser.parse_args()
    settings = ScholarSettings()
    names = [b for b in args.backends.split(",") if b]
    texts = questions(args.files)

    models, load_cpu = {}, {}
    for name in names:  # untimed: a missing export is made here, and the first load's imports are paid here
        build_embed_model(settings.model_copy(update={"embed_backend": name}), threads=settings.query_threads)
    for name in names:
        c0 = time.process_time()
        models[name] = build_embed_model(settings.model_copy(update={"embed_backend": name}),
                                         threads=settings.query_threads)
        models[name].get_query_embedding("warm-up")
        load_cpu[name] = round(time.process_time() - c0, 2)

    cpu_ms: dict[str, list[float]] = {n: [] for n in names}
    for r in range(args.rounds):
        for i, text in enumerate(texts):
            order = names if (r + i) % 2 == 0 else list(reversed(names))
            for name in order:
                c0 = time.process_time()
                models[name].get_query_embedding(text)
                cpu_ms[name].append((time.process_time() - c0) * 1000)

    rows = {}
    for name in names:
        ms = sorted(cpu_ms[name])
        rows[name] = {"median_cpu_ms": round(statistics.median(ms), 2),
                      "p90_cpu_ms": round(ms[int(0.9 * (len(ms) - 1))], 2), "load_cpu_s": load_cpu[name]}
    result = {"questions": len(texts), "rounds": args.rounds, "threads": settings.query_threads,
              "files": [str(f) for f in args.files], "backends": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write("| backend | CPU ms per question, median | p90 | load CPU s |\n|---|---|---|---|\n")
    for name, row in rows.items():
        sys.stdout.write(f"| {name} | {row['median_cpu_ms']} | {row['p90_cpu_ms']} | {row['load_cpu_s']} |\n")
    sys.stdout.write(f"\n{len(texts)} questions x {args.rounds} rounds, {settings.query_threads} thread(s). "
                     f"JSON: {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
