"""How well the aligned corpus supports each vocabulary bridge (tools/data/bridges.toml).

    python bench/check_bridges.py [--index var/index] [--min-share 0.3]

For every bridge: the segments whose Pali holds one of its Pali words (folded, by stem), and the share of those
whose English holds one of its Sujato renderings. A low share means the row names a rendering Sujato does not use
for that word. Also lists older renderings that are frequent in the English itself (those the dense query follows
with Sujato's word instead of replacing). Exits 1 when a row with Pali falls below --min-share.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import sys
from pathlib import Path

from indexing.pali_index import nasal
from indexing.settings import ScholarSettings
from indexing.text import fold, tokenize
from tools.search.bridges import BRIDGES_FILE, NATIVE_MIN_CHUNKS, load_bridges


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=ScholarSettings().index_dir)
    parser.add_argument("--bridges", type=Path, default=BRIDGES_FILE)
    parser.add_argument("--min-share", type=float, default=0.3)
    args = parser.parse_args()

    db = sqlite3.connect(f"file:{args.index / 'docstore.sqlite'}?mode=ro", uri=True)
    rows = [(nasal(fold(pali)), set(tokenize(en))) for en, pali in db.execute(
        "SELECT en, pali FROM segments WHERE pali != ''")]
    chunk_tokens = [set(tokenize(c)) for (c,) in db.execute("SELECT json_extract(data, '$.text') FROM chunks")]
    low = 0
    sys.stdout.write(f"{'pali':<28}{'segments':>9}{'share':>7}  sujato / older found in the English itself\n")
    for bridge in load_bridges(args.bridges):
        rendered = [set(tokenize(s)) for s in bridge.sujato]
        native = [o for o in bridge.older
                  if (toks := set(tokenize(o))) and sum(1 for c in chunk_tokens if toks <= c) >= NATIVE_MIN_CHUNKS]
        if not bridge.pali:
            continue
        # a-stems inflect their last vowel (jhāna -> jhānaṁ); i- and u-stems keep it (bhikkhunī, not bhikkhunā)
        keys = [nasal(fold(p).replace(" ", "")) for p in bridge.pali]
        stems = [re.compile(r"\b" + re.escape(k[:-1] if k.endswith("a") else k)) for k in keys]
        hits = [en for pali, en in rows if any(s.search(pali) for s in stems)]
        share = sum(1 for en in hits if any(r <= en for r in rendered)) / len(hits) if hits else 0.0
        flag = "" if share >= args.min_share else "  <-- low"
        low += bool(flag)
        sys.stdout.write(f"{'/'.join(bridge.pali):<28}{len(hits):>9}{share:>7.2f}  {bridge.sujato[0]}"
                         f"{' / native: ' + ', '.join(native) if native else ''}{flag}\n")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
