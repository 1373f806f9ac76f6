"""SuttaCentral bilara segment files -> one SourceDocument per sutta (or per Dhammapada verse).

English translation files are the unit of ingestion; each is paired with its Pali root by relative path and
with its names and blurb by uid. A range file (`an1.1-10`) yields one document per uid found inside it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from indexing.errors import SourceError
from indexing.models import SourceDocument, Unit
from indexing.vocabulary import parse_uid

log = logging.getLogger(__name__)

TRANSLATION_SUFFIX = "_translation-en-sujato.json"
ROOT_SUFFIX = "_root-pli-ms.json"


def is_translation_file(path: Path) -> bool:
    return path.name.endswith(TRANSLATION_SUFFIX) and "/sutta/" in path.as_posix() and "/name/" not in path.as_posix()


def find_tree_root(path: Path) -> Path | None:
    """The folder holding `translation/` and `root/`, found by walking up from any file inside the tree."""
    for parent in [path, *path.parents]:
        if (parent / "translation").is_dir() and (parent / "root").is_dir():
            return parent
    return None


def pali_path_for(translation: Path, tree: Path) -> Path:
    rel = translation.relative_to(tree / "translation" / "en" / "sujato")
    return tree / "root" / "pli" / "ms" / rel.parent / rel.name.replace(TRANSLATION_SUFFIX, ROOT_SUFFIX)


@dataclass
class _Names:
    english: dict[str, str] = field(default_factory=dict)  # uid -> name
    pali: dict[str, str] = field(default_factory=dict)
    blurbs: dict[str, str] = field(default_factory=dict)


def _load_flat(path: Path) -> dict[str, str]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _name_uid(key: str) -> str:
    # `mn-name:3.mn1` -> `mn1`; the number before the dot is only the display order
    return key.partition(":")[2].partition(".")[2]


@lru_cache(maxsize=8)
def _names(tree: Path) -> _Names:
    names = _Names()
    for f in (tree / "translation" / "en" / "sujato" / "name" / "sutta").glob("*.json"):
        for key, value in _load_flat(f).items():
            names.english[_name_uid(key)] = value.strip()
    for f in (tree / "root" / "misc" / "site" / "name" / "sutta").glob("*.json"):
        for key, value in _load_flat(f).items():
            names.pali[_name_uid(key)] = value.strip()
    for f in (tree / "root" / "en" / "blurb").glob("*.json"):
        for key, value in _load_flat(f).items():
            names.blurbs[key.split(":", 1)[1]] = value.strip()
    return names


def read_segments(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise SourceError(f"not UTF-8: {exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise SourceError(f"malformed JSON at line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise SourceError("not a bilara segment file (expected a flat object of strings)")
    return data


def _is_verse(book: str, text: str) -> bool:
    # Sujato sets verse as short lines without sentence-final prose punctuation; Dhp is verse throughout.
    return book == "dhp"


def parse_file(path: Path, tree: Path | None = None) -> list[SourceDocument]:
    tree = tree or find_tree_root(path)
    english = read_segments(path)
    pali: dict[str, str] = {}
    if tree is not None:
        pali_file = pali_path_for(path, tree)
        if pali_file.exists():
            try:
                pali = read_segments(pali_file)
            except SourceError as exc:
                log.warning("Pali root %s unreadable (%s); English only", pali_file, exc)
    names = _names(tree) if tree is not None else _Names()

    by_uid: dict[str, list[str]] = {}
    for seg_id in english:
        uid = seg_id.partition(":")[0]
        by_uid.setdefault(uid, []).append(seg_id)

    file_uid = path.name.replace(TRANSLATION_SUFFIX, "")
    file_headers = {k: v.strip() for k, v in english.items() if k.partition(":")[2].startswith("0.")}
    chapter = _chapter_title(file_headers)
    if file_uid.startswith("dhp"):
        chapter = next((v for k, v in file_headers.items() if k.endswith(":0.3")), chapter)
    docs = []
    for uid, seg_ids in by_uid.items():
        parsed = parse_uid(uid)
        if parsed is None:
            log.debug("skipping unknown uid %s in %s", uid, path)
            continue
        headers = {s: english[s].strip() for s in seg_ids if s.partition(":")[2].startswith("0.")}
        body = [s for s in seg_ids if s not in headers]  # files are in reading order; keep it
        units, previous_para = [], None
        for seg_id in body:
            text = english[seg_id].strip()
            if not text:
                continue  # peyyāla: abbreviated in the translation; ranges still span it
            para = seg_id.partition(":")[2].split(".")[0]
            local = seg_id.partition(":")[2]
            if local.endswith(".0") and len(text) < 60:
                # a section number or sub-heading (`1 `, `The Simile of the Saw`) opens a new section
                previous_para = None
                if text.rstrip(".").isdigit():
                    continue
            units.append(
                Unit(
                    text=text,
                    ref=seg_id,
                    pali=pali.get(seg_id, "").strip(),
                    is_verse=_is_verse(parsed.book, text),
                    boundary=para != previous_para,
                )
            )
            previous_para = para
        if not units:
            continue
        title = _title(parsed.book, uid, headers, chapter, names)
        title_pali = _pali_title(parsed.book, uid, pali, names)
        group_title = names.english.get(f"{parsed.book}{parsed.group}", "") if parsed.group else ""
        docs.append(
            SourceDocument(
                doc_id=uid,
                sutta_id=parsed.sutta_id,
                title=title,
                title_pali=title_pali,
                source_path=str(path),
                kind="sutta",
                units=units,
                collection=parsed.collection,
                book=parsed.book_label,
                group=parsed.group,
                group_title=group_title,
                blurb=names.blurbs.get(uid, ""),
                headers=headers or {k: v for k, v in file_headers.items() if k.startswith(file_uid.split("-")[0])},
            )
        )
    return docs


def _chapter_title(headers: dict[str, str]) -> str:
    for key in headers:
        if key.endswith(":0.2"):
            return headers[key]
    return ""


def _title(book: str, uid: str, headers: dict[str, str], chapter: str, names: _Names) -> str:
    ordered = list(headers.values())
    if book == "dhp":
        # Dhp headers name the chapter (`1. Pairs`); the verse itself has no title
        chapter_name = next((v for k, v in headers.items() if k.endswith(":0.3")), chapter)
        return f"Dhammapada, {chapter_name.split('. ', 1)[-1]}" if chapter_name else "Dhammapada"
    if book in ("dn", "mn") and len(ordered) >= 2:
        return ordered[-1]
    if book in ("sn", "an") and len(ordered) >= 3:
        return ordered[-1]
    if uid in names.english:
        return names.english[uid]
    return chapter


def _pali_title(book: str, uid: str, pali: dict[str, str], names: _Names) -> str:
    if uid in names.pali:
        return names.pali[uid]
    headers = [k for k in pali if k.startswith(uid + ":0.")]
    return pali[headers[-1]].strip() if len(headers) >= 2 else ""
