"""Every sutta uid in the corpus's English translation files must be findable by its canonical ID in an index.

    python bench/check_ids.py [--corpus ../shared/corpus/suttacentral] [--index var/index]

Opens the docstore read-only; exits 1 and lists what is missing if any ID is not found.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from indexing.settings import ScholarSettings
from indexing.sources.suttacentral import is_translation_file
from indexing.vocabulary import parse_uid, uid_to_sutta_id


def corpus_uids(tree: Path) -> set[str]:
    uids: set[str] = set()
    for path in tree.rglob("*.json"):
        if is_translation_file(path):
            uids |= {seg.partition(":")[0] for seg in json.loads(path.read_text(encoding="utf-8"))}
    return uids


def main() -> int:
    defaults = ScholarSettings()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=defaults.corpus_paths[0])
    parser.add_argument("--index", type=Path, default=defaults.index_dir)
    args = parser.parse_args()

    uids = corpus_uids(args.corpus)
    unparsed = sorted(u for u in uids if parse_uid(u) is None)
    db = sqlite3.connect(f"file:{args.index / 'docstore.sqlite'}?mode=ro", uri=True)
    rows = db.execute("SELECT sutta_id, doc_id FROM documents WHERE sutta_id IS NOT NULL")
    indexed = {row[0].lower(): row[1] for row in rows}
    with_chunks = {row[0] for row in db.execute("SELECT DISTINCT doc_id FROM chunks")}
    missing, no_chunks, by_book = [], [], {}
    for uid in sorted(u for u in uids if parse_uid(u) is not None):
        canonical = uid_to_sutta_id(uid)
        book = parse_uid(uid).book_label
        by_book[book] = by_book.get(book, 0) + 1
        doc_id = indexed.get(canonical.lower())
        if doc_id != uid:
            missing.append(canonical)
        elif doc_id not in with_chunks:
            no_chunks.append(canonical)
    found = len(uids) - len(unparsed) - len(missing)
    sys.stdout.write(
        f"{len(uids)} uids in {args.corpus} ({', '.join(f'{k} {v}' for k, v in sorted(by_book.items()))}); "
        f"{found} found by canonical ID in {args.index}; {len(missing)} missing; {len(no_chunks)} without chunks; "
        f"{len(unparsed)} not parseable as sutta uids\n"
    )
    for label, items in (("missing", missing), ("without chunks", no_chunks), ("unparseable", unparsed)):
        if items:
            sys.stdout.write(f"{label}: {', '.join(items[:50])}{' ...' if len(items) > 50 else ''}\n")
    return 1 if missing or no_chunks or unparsed else 0


if __name__ == "__main__":
    sys.exit(main())
