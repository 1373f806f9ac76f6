"""Ingest benchmark: a full ingest into a fresh temporary index against embedding alone, and a no-op re-ingest.

    HF_HUB_OFFLINE=1 PYTHONPATH=. python bench/ingest.py [--corpus PATH ...] [--pairs N] [--out FILE] [--keep]

The yardstick ("embedding only") is every text the ingest embeds, embedded by the same model in the same calls:
the chunks in the semantic phase's groups, then each sutta card's two texts (the card and its name) in one call,
as `refresh_cards` does. It is reported whole and split (chunks alone, the old yardstick, and cards), so nothing
is hidden. Ingest and yardstick run in interleaved pairs (I E, E I, I E ...), each ingest into a fresh index, and
the ratio is taken pair by pair: other processes on the machine slow both halves of a pair alike. A third figure
needs no yardstick at all: the same ingest with an embedder that costs nothing (random vectors of the model's
size), which is the time the pipeline spends outside the model.

`--pairs 0` runs the no-cost ingest alone (no model is loaded): the figure that matters on the whole library,
where one pair takes most of an hour of the shared cores.

Start-up is outside every timing, as the model's loading is: importing Chroma (paid once per process, by the
first ingest) is done and reported before the pairs.

Default corpus: the configured SCHOLAR_CORPUS_PATHS (the whole shared SuttaCentral corpus). Prints a Markdown
table and writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from indexing import embeddings, pipeline, semantic
from indexing.cards import cards_dir, load_cards
from indexing.embeddings import build_embed_model, embed_model_name
from indexing.settings import ScholarSettings
from indexing.sources.router import discover


class NullEmbedding(BaseEmbedding):
    """Random unit vectors of the real model's size, at no cost: the ingest's time with the model taken out."""

    dim: int = 384

    def _vector(self, text: str) -> list[float]:
        v = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(self.dim)
        return (v / np.linalg.norm(v)).tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _chunk_groups(settings: ScholarSettings, roots: list[Path]) -> list[list[str]]:
    """The chunk texts the pipeline embeds into a fresh index, in its calls: every chunk in the semantic phase's
    order (indexing/semantic.py), in groups of EMBED_GROUP_CHUNKS."""
    chunks = []
    for path, reader in discover(roots):
        try:
            chunks.extend(pipeline._parse(path, reader, settings)[1])
        except Exception:  # skipped by the pipeline too
            continue
    texts = [c.embedding_text() for c in sorted(chunks, key=semantic._order)]
    size = semantic.EMBED_GROUP_CHUNKS
    return [texts[i : i + size] for i in range(0, len(texts), size)]


def _card_texts(settings: ScholarSettings) -> list[str]:
    """The texts `refresh_cards` embeds into a fresh index: each card's, then its name's, in one call."""
    return [t for c in load_cards(cards_dir(settings)).values() for t in (c.dense_text(), c.name_text())]


def _timed(fn) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - started, time.process_time() - cpu


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _ingest_run(base: ScholarSettings, workdir: Path, name: str, roots: list[Path], model) -> dict:
    settings = base.model_copy(update={"index_dir": workdir / name})
    load_before = _load()
    holder: dict = {}
    wall, cpu = _timed(lambda: holder.setdefault(
        "report", pipeline.ingest(settings, roots, embed_model=model, progress=False)))
    r = holder["report"]
    parts = {
        "open_stores": r.open_seconds, "parse": r.parse_seconds, "embed_chunks": r.embed_seconds,
        "chroma_writes": r.chroma_seconds, "docstore_writes": r.docstore_seconds, "bm25_english": r.bm25_seconds,
        "bm25_pali": r.pali_seconds, "parallels": r.parallels_seconds, "cards_embed": r.cards_embed_seconds,
        "cards_build_and_write": r.cards_seconds - r.cards_embed_seconds,
    }
    parts["other"] = wall - sum(parts.values())
    return {
        "settings": settings, "report": r, "wall": wall, "cpu": cpu, "load_before": load_before, "load_after": _load(),
        "breakdown_seconds": {k: round(v, 2) for k, v in parts.items()},
    }


def _embed_run(model, chunk_groups: list[list[str]], card_texts: list[str]) -> dict:
    load_before = _load()
    chunks_wall, chunks_cpu = _timed(lambda: [embeddings.embed_texts(model, g) for g in chunk_groups])
    cards_wall, cards_cpu = _timed(lambda: embeddings.embed_texts(model, card_texts) if card_texts else None)
    return {"chunks_wall": chunks_wall, "chunks_cpu": chunks_cpu, "cards_wall": cards_wall, "cards_cpu": cards_cpu,
            "wall": chunks_wall + cards_wall, "cpu": chunks_cpu + cards_cpu,
            "load_before": load_before, "load_after": _load()}


def _null_only(base: ScholarSettings, workdir: Path, roots: list[Path], args) -> int:
    try:
        t0 = time.perf_counter()
        import chromadb  # noqa: F401  (start-up, outside the timing)
        import_s = time.perf_counter() - t0
        run = _ingest_run(base, workdir, "null", roots, NullEmbedding(model_name="null",
                                                                      embed_batch_size=base.embed_batch_size))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    r = run["report"]
    result = {
        "corpus": [str(x) for x in roots], "cpus": os.cpu_count(), "nice": os.nice(0),
        "files": r.files_seen, "files_skipped": len(r.skipped), "chunks": r.chunks_written,
        "documents_with_cards": r.cards_embedded,
        "null_embedder_ingest_seconds": round(run["wall"], 2), "null_embedder_ingest_cpu_seconds": round(run["cpu"], 2),
        "null_embedder_breakdown_seconds": run["breakdown_seconds"],
        "load_average": [run["load_before"], run["load_after"]], "chroma_import_seconds": round(import_s, 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    br = run["breakdown_seconds"]
    rows = [
        ("corpus", ", ".join(Path(x).name for x in roots)),
        ("files / chunks / cards", f"{r.files_seen} / {r.chunks_written} / {r.cards_embedded}"),
        ("ingest with a no-cost embedder (time outside the model)", f"{run['wall']:.1f} s ({run['cpu']:.1f} CPU s)"),
        ("  " + " / ".join(br), " / ".join(f"{v:.1f}" for v in br.values()) + " s"),
        ("load average (1 min) before / after", f"{run['load_before'][0]} / {run['load_after'][0]}"),
    ]
    sys.stdout.write("| measure | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows))
    sys.stdout.write(f"\nJSON: {args.out}\n")
    return 0


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help="file or folder; repeatable")
    parser.add_argument("--pairs", type=int, default=1,
                        help="interleaved (ingest, embedding-only) pairs; 0: only the no-cost-embedder ingest")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "ingest.json")
    parser.add_argument("--keep", action="store_true", help="keep the temporary indexes")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    base = ScholarSettings()
    roots = [p.resolve() for p in (args.corpus or base.corpus_paths)]
    workdir = Path(tempfile.mkdtemp(prefix="scholar-bench-"))
    base = base.model_copy(update={"chroma_url": None, "corpus_paths": roots})
    ingests: list[dict] = []
    embeds: list[dict] = []
    if args.pairs == 0:
        return _null_only(base, workdir, roots, args)
    try:
        t0 = time.perf_counter()
        model = build_embed_model(base)
        embeddings.embed_texts(model, ["warm-up text for the encoder"] * base.embed_batch_size)
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        import chromadb  # noqa: F401  (start-up, like the model's loading: paid once per process)
        import_s = time.perf_counter() - t0

        null = NullEmbedding(model_name="null", embed_batch_size=base.embed_batch_size,
                             dim=len(embeddings.embed_texts(model, ["x"])[0]))
        null_run = _ingest_run(base, workdir, "null", roots, null)

        groups: list[list[str]] = []
        cards: list[str] = []
        for i in range(max(1, args.pairs)):
            steps = ("ingest", "embed") if i % 2 == 0 else ("embed", "ingest")
            for step in steps:
                if step == "ingest":
                    ingests.append(_ingest_run(base, workdir, f"index-{i}", roots, model))
                    if not groups:  # the texts to embed are known once the first index holds the cards
                        groups = _chunk_groups(base, roots)
                        cards = _card_texts(ingests[0]["settings"])
                else:
                    embeds.append(_embed_run(model, groups, cards))
            log_pair = ingests[-1]["wall"], embeds[-1]["wall"]
            print(f"pair {i + 1}: ingest {log_pair[0]:.1f} s, embedding only {log_pair[1]:.1f} s, "
                  f"load {_load()}", file=sys.stderr)
        first = ingests[0]
        rss_after_ingest = _peak_rss_mb()
        size = _du(first["settings"].index_dir)
        noop_s, noop_cpu = _timed(lambda: first.setdefault("noop", pipeline.ingest(
            first["settings"], roots, embed_model=model, progress=False)))
        noop = first["noop"]
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    report = first["report"]
    pairs = [
        {
            "ingest_seconds": round(i["wall"], 2), "ingest_cpu_seconds": round(i["cpu"], 2),
            "embed_chunks_seconds": round(e["chunks_wall"], 2), "embed_cards_seconds": round(e["cards_wall"], 2),
            "embed_all_seconds": round(e["wall"], 2), "embed_all_cpu_seconds": round(e["cpu"], 2),
            "embed_chunks_cpu_seconds": round(e["chunks_cpu"], 2),
            "ratio_to_all_embeddings": round(i["wall"] / e["wall"], 3),
            "cpu_ratio_to_all_embeddings": round(i["cpu"] / e["cpu"], 3),
            "ratio_to_chunk_embeddings": round(i["wall"] / e["chunks_wall"], 3),
            "cpu_ratio_to_chunk_embeddings": round(i["cpu"] / e["chunks_cpu"], 3),
            "ingest_embedding_inside": round(i["report"].embed_seconds + i["report"].cards_embed_seconds, 2),
            "breakdown_seconds": i["breakdown_seconds"],
            "load_average": {"ingest": [i["load_before"], i["load_after"]],
                             "embedding_only": [e["load_before"], e["load_after"]]},
        }
        for i, e in zip(ingests, embeds)
    ]
    med = {key: _median([p[key] for p in pairs]) for key in pairs[0] if isinstance(pairs[0][key], float)}
    null_wall = null_run["wall"]
    result = {
        "corpus": [str(r) for r in roots],
        "embedding_model": embed_model_name(base),
        "embed_batch_size": base.embed_batch_size,
        "embed_group_chunks": pipeline.EMBED_GROUP_CHUNKS,
        "cpus": os.cpu_count(),
        "nice": os.nice(0),
        "python": platform.python_version(),
        "files": report.files_seen,
        "files_skipped": len(report.skipped),
        "documents_with_cards": len(cards) // 2,
        "chunks": report.chunks_written,
        "texts_embedded": {"chunks": sum(map(len, groups)), "card_texts": len(cards)},
        "pairs": pairs,
        "median": med,
        "null_embedder_ingest_seconds": round(null_wall, 2),
        "null_embedder_ingest_cpu_seconds": round(null_run["cpu"], 2),
        "null_embedder_breakdown_seconds": null_run["breakdown_seconds"],
        # the ingest's own time over the embedding's, without a yardstick run: (embedding + overhead) / embedding
        "ratio_from_null_run": round((med["embed_all_seconds"] + null_wall) / med["embed_all_seconds"], 3),
        "noop_reingest_seconds": round(noop_s, 2),
        "noop_reingest_cpu_seconds": round(noop_cpu, 2),
        "noop_texts_embedded": noop.chunks_written + noop.cards_embedded,
        "peak_rss_mb": round(rss_after_ingest, 1),
        "index_bytes": size,
        "model_load_seconds": round(load_s, 2),
        "chroma_import_seconds": round(import_s, 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    loads = [x for p in pairs for pair in p["load_average"].values() for x in (pair[0][0], pair[1][0])]
    br = pairs[0]["breakdown_seconds"]
    rows = [
        ("corpus", ", ".join(Path(r).name for r in roots)),
        ("files / chunks / cards", f"{result['files']} / {result['chunks']} / {len(cards) // 2} "
                                   f"({result['files_skipped']} files skipped)"),
        ("pairs (ingest, embedding only), interleaved", str(len(pairs))),
        ("full ingest (wall, median)", f"{med['ingest_seconds']:.1f} s ({med['ingest_cpu_seconds']:.0f} CPU s)"),
        ("embedding only: chunks + cards = all (median)",
         f"{med['embed_chunks_seconds']:.1f} + {med['embed_cards_seconds']:.1f} = {med['embed_all_seconds']:.1f} s "
         f"({med['embed_all_cpu_seconds']:.0f} CPU s)"),
        ("**ingest / all embeddings** (wall; CPU s), median of pairs",
         f"**{med['ratio_to_all_embeddings']}x**; {med['cpu_ratio_to_all_embeddings']}x (target <= 1.15x)"),
        ("ingest / chunk embeddings only (wall; CPU s)",
         f"{med['ratio_to_chunk_embeddings']}x; {med['cpu_ratio_to_chunk_embeddings']}x"),
        ("ingest with a no-cost embedder (time outside the model)",
         f"{null_wall:.1f} s ({null_run['cpu']:.1f} CPU s) -> (all embeddings + this) / all embeddings = "
         f"{result['ratio_from_null_run']}x"),
        ("  first ingest: " + " / ".join(br), " / ".join(f"{v:.1f}" for v in br.values()) + " s"),
        ("no-op re-ingest", f"{noop_s:.2f} s (target < 10 s)"),
        ("load average (1 min) around the runs", f"{min(loads):.1f}-{max(loads):.1f}"),
        ("peak RSS", f"{result['peak_rss_mb']:.0f} MB"),
        ("index size on disk", f"{size / 1e6:.1f} MB"),
        ("start-up, not timed: model load + warm-up; Chroma import", f"{load_s:.1f} s; {import_s:.1f} s"),
    ]
    sys.stdout.write("| measure | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows))
    sys.stdout.write(f"\nJSON: {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
