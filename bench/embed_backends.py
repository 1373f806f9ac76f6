"""The local embedding backends side by side in one run: chunks per second and agreement with torch's vectors.

    HF_HUB_OFFLINE=1 PYTHONPATH=. python bench/embed_backends.py [--texts N] [--rounds R] [--out FILE]

The texts are the first N chunks the ingest would embed from the configured corpus, embedded as the ingest
embeds them (`embed_texts`: the configured batch size, longest first). The backends run in interleaved
rounds (torch onnx onnx-int8, then reversed, ...), so a machine that slows down or speeds up during the run
slows every backend alike; the median round is reported, as wall and as CPU seconds of this process (the fairer
figure on a machine other work shares). Loading each model (and exporting it to ONNX the first time) is outside
the timing and reported apart. Agreement: the cosine of each text's vector with torch's.
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

import numpy as np

from indexing import pipeline
from indexing.embeddings import BACKENDS, build_embed_model, embed_texts
from indexing.settings import ScholarSettings
from indexing.sources.router import discover


def corpus_texts(settings: ScholarSettings, n: int) -> list[str]:
    texts: list[str] = []
    for path, reader in discover([Path(p) for p in settings.corpus_paths]):
        try:
            _, chunks = pipeline._parse(path, reader, settings)
        except Exception:  # skipped by the pipeline too
            continue
        texts += [c.embedding_text() for c in chunks]
        if len(texts) >= n:
            break
    return texts[:n]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "embed-backends.json")
    args = parser.parse_args()
    settings = ScholarSettings()
    names = [b for b in args.backends.split(",") if b]
    texts = corpus_texts(settings, args.texts)

    models, load_s = {}, {}
    for name in names:
        t0 = time.perf_counter()
        models[name] = build_embed_model(settings.model_copy(update={"embed_backend": name}))
        embed_texts(models[name], texts[: settings.embed_batch_size])  # warm-up, untimed
        load_s[name] = round(time.perf_counter() - t0, 2)

    walls: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    vectors: dict[str, np.ndarray] = {}
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else list(reversed(names)):
            w0, c0 = time.perf_counter(), time.process_time()
            out = embed_texts(models[name], texts)
            walls[name].append(time.perf_counter() - w0)
            cpus[name].append(time.process_time() - c0)
            vectors[name] = np.asarray(out, dtype=np.float64)
        print(f"round {r + 1}: " + ", ".join(f"{n} {walls[n][-1]:.1f} s" for n in names)
              + f"; load {os.getloadavg()[0]:.1f}", file=sys.stderr)

    rows = {}
    for name in names:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        row = {"chunks_per_s": round(len(texts) / wall, 2), "chunks_per_cpu_s": round(len(texts) / cpu, 2),
               "wall_s": [round(x, 2) for x in walls[name]], "cpu_s": [round(x, 2) for x in cpus[name]],
               "load_and_warmup_s": load_s[name]}
        if "torch" in vectors and name != "torch":
            cos = (vectors[name] * vectors["torch"]).sum(axis=1)
            row.update(cos_to_torch_min=round(float(cos.min()), 5), cos_to_torch_mean=round(float(cos.mean()), 5))
        rows[name] = row
    result = {"texts": len(texts), "rounds": args.rounds, "batch_size": settings.embed_batch_size,
              "cpus": os.cpu_count(), "backends": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    base = rows.get("torch")
    sys.stdout.write("| backend | chunks/s (wall) | chunks per CPU s | x torch (CPU) | cos to torch min / mean |\n"
                     "|---|---|---|---|---|\n")
    for name, row in rows.items():
        ratio = f"{row['chunks_per_cpu_s'] / base['chunks_per_cpu_s']:.2f}x" if base else "-"
        cos = f"{row['cos_to_torch_min']} / {row['cos_to_torch_mean']}" if "cos_to_torch_min" in row else "-"
        sys.stdout.write(f"| {name} | {row['chunks_per_s']} | {row['chunks_per_cpu_s']} | {ratio} | {cos} |\n")
    sys.stdout.write(f"\n{len(texts)} texts, median of {args.rounds} interleaved rounds. JSON: {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
