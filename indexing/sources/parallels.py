"""SuttaCentral's table of related texts (`relationship/parallels.json`), read once per ingest when it changes.

The file is a JSON array of one-key objects — `{"parallels": [ids]}`, `{"mentions": [ids]}`, `{"retells": [ids]}`
— each a group of texts related to one another. An id is a uid, optionally with a part after `#` (`sn1.20#28`,
`mn131#2-#5`, `pli-tv-bu-pm#pc51`); a leading `~` marks a partial or resembling parallel. The source has quirks
this reader survives: a doubled `##`, ranges running backwards (`mn53#17-#8`) or without the second `#`, en dashes
in ranges, spaces around or inside an id (`Manusmṛti 2.121`), and ids that are no uid at all. A malformed entry is
skipped, never the whole file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from indexing.errors import SourceError

log = logging.getLogger(__name__)

KINDS = ("parallels", "mentions", "retells")
_DASH = re.compile(r"\s*[-\u2013\u2014]\s*")


@dataclass(frozen=True)
class Related:
    uid: str  # `mn10`, `ma98`, `Manusmṛti 2.121` (kept as written when it is no uid)
    section: str  # "" for the whole text; `28`, `2-5`, `pc51`
    partial: bool


def parse_id(raw: str) -> Related | None:
    """One entry of a group: `~mn53#17-#8` -> Related("mn53", "8-17", partial=True); None if nothing is left."""
    text = " ".join(str(raw).split())
    partial = text.startswith("~")
    text = text.lstrip("~").strip()
    uid, _, section = text.partition("#")
    uid = uid.strip()
    if not uid:
        return None
    return Related(uid, _section(section), partial)


def _section(section: str) -> str:
    parts = [p.strip("#").strip() for p in _DASH.split(section.replace("##", "#"), maxsplit=1)]
    parts = [p for p in parts if p]
    if len(parts) == 2:
        lo, hi = parts
        if lo.isdigit() and hi.isdigit() and int(lo) > int(hi):
            lo, hi = hi, lo  # `mn53#17-#8`: the source wrote the range backwards
        return f"{lo}-{hi}"
    return parts[0] if parts else ""


def read_parallels(path: Path) -> list[tuple[str, list[Related]]]:
    """(kind, members) per group, in the file's order. Raises SourceError when the file is not such a table."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(f"parallels table {path} unreadable: {exc}") from exc
    if not isinstance(data, list):
        raise SourceError(f"parallels table {path}: expected a JSON array")
    groups: list[tuple[str, list[Related]]] = []
    skipped = 0
    for entry in data:
        if not isinstance(entry, dict) or len(entry) != 1:
            skipped += 1
            continue
        (kind, ids), = entry.items()
        if kind not in KINDS or not isinstance(ids, list):
            skipped += 1
            continue
        members = [r for r in (parse_id(i) for i in ids if isinstance(i, str)) if r is not None]
        if len(members) >= 2:
            groups.append((kind, members))
    if skipped:
        log.info("parallels table %s: %d malformed entries skipped", path.name, skipped)
    return groups


def parallels_rows(groups: list[tuple[str, list[Related]]]) -> list[tuple[int, str, str, str, bool]]:
    """The docstore's rows: (group number, kind, uid, section, partial)."""
    return [(g, kind, r.uid, r.section, r.partial) for g, (kind, members) in enumerate(groups) for r in members]


def table_for(tree: Path) -> Path | None:
    path = tree / "relationship" / "parallels.json"
    return path if path.is_file() else None


def table_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
