"""SuttaCentral bilara segment files -> one SourceDocument per text and translator (per verse for the Dhammapada).

English translation files are the unit of ingestion, whoever the translator (`…_translation-en-sujato.json`,
`…-brahmali.json`, `…-soma.json`); each is paired with its Pali root by relative path and with its names and
blurb by uid. A range file (`an1.1-10`) yields one document per uid found inside it. The basket's default
translator (`vocabulary.DEFAULT_TRANSLATORS`) owns the document whose ID is the uid; another translator's
document of the same text is `<uid>@<translator>`, an alternative rendering of the same segments.

Bilara text carries a little markup: `<j>` where a verse line breaks inside a segment becomes a line break;
`<em>`, `<i lang='pi'>` and links are reduced to their words. Nothing downstream sees a tag.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from indexing.errors import SourceError
from indexing.models import SourceDocument, Unit
from indexing.vocabulary import BOOKS, DEFAULT_TRANSLATORS, ParsedUid, parse_uid

log = logging.getLogger(__name__)

# Bump when the documents this reader makes from the same files change (new books, titles, markup, metadata):
# the version is part of every file's content hash, so an existing index re-reads each file once.
PARSER_VERSION = 3
ROOT_SUFFIX = "_root-pli-ms.json"
_TRANSLATION = re.compile(r"^(?P<uid>.+)_translation-en-(?P<translator>[a-z]+)\.json$")
_TEXT_PARTS = ("/sutta/", "/vinaya/")
_LINE_BREAK = re.compile(r"[ \t]*<j>[ \t]*")
_TAG = re.compile(r"<[^<>]{1,300}>")


def is_translation_file(path: Path) -> bool:
    posix = path.as_posix()
    return bool(_TRANSLATION.match(path.name)) and any(p in posix for p in _TEXT_PARTS) and "/name/" not in posix


def translator_of(path: Path) -> str:
    m = _TRANSLATION.match(path.name)
    return m.group("translator") if m else ""


def file_uid(path: Path) -> str:
    m = _TRANSLATION.match(path.name)
    return m.group("uid") if m else path.stem


def find_tree_root(path: Path, memo: dict[Path, Path | None] | None = None) -> Path | None:
    """The folder holding `translation/` and `root/`, found by walking up from any file inside the tree.
    `memo` (folder -> its tree root) spares a caller that asks for thousands of files two stats a level each."""
    walked: list[Path] = []
    found: Path | None = None
    for parent in [path, *path.parents]:
        if memo is not None and parent in memo:
            found = memo[parent]
            break
        if (parent / "translation").is_dir() and (parent / "root").is_dir():
            found = parent
            break
        walked.append(parent)
    if memo is not None:
        memo.update((p, found) for p in walked[1:])  # the folders passed on the way; not `path` itself
    return found


def pali_path_for(translation: Path, tree: Path) -> Path:
    translator = translator_of(translation)
    rel = translation.relative_to(tree / "translation" / "en" / translator)
    return tree / "root" / "pli" / "ms" / rel.parent / f"{file_uid(translation)}{ROOT_SUFFIX}"


def clean_text(text: str) -> str:
    """Bilara text as a reader sees it: `<j>` a line break, other tags reduced to their words, no edge spaces."""
    if "<" not in text:
        return text.strip()
    return _TAG.sub("", _LINE_BREAK.sub("\n", text)).strip()


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
    # `mn-name:3.mn1` -> `mn1`, `pli-tv-pvr-name:1.pli-tv-pvr1.1` -> `pli-tv-pvr1.1`: the number before the first
    # dot is only the display order
    return key.partition(":")[2].partition(".")[2]


@lru_cache(maxsize=8)
def _names(tree: Path) -> _Names:
    names = _Names()
    for basket in ("sutta", "vinaya"):
        for f in (tree / "translation" / "en" / "sujato" / "name" / basket).glob("*.json"):
            for key, value in _load_flat(f).items():
                names.english[_name_uid(key)] = clean_text(value)
        for f in (tree / "root" / "misc" / "site" / "name" / basket).glob("*.json"):
            for key, value in _load_flat(f).items():
                names.pali[_name_uid(key)] = clean_text(value)
    for f in (tree / "root" / "en" / "blurb").glob("*.json"):
        for key, value in _load_flat(f).items():
            names.blurbs[key.split(":", 1)[1]] = clean_text(value)
    return names


@lru_cache(maxsize=32)
def _own_files(folder: Path, translator: str) -> frozenset[str]:
    """The uids that have a file of their own in one translator's tree."""
    suffix = f"_translation-en-{translator}.json"
    return frozenset(p.name[: -len(suffix)] for p in folder.rglob(f"*{suffix}"))


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


def doc_id_for(uid: str, translator: str, basket: str) -> str:
    """The uid for the basket's default translator, `<uid>@<translator>` for an alternative rendering."""
    return uid if translator == DEFAULT_TRANSLATORS.get(basket, translator) else f"{uid}@{translator}"


def parse_file(path: Path, tree: Path | None = None) -> list[SourceDocument]:
    tree = tree or find_tree_root(path)
    translator = translator_of(path) or "sujato"
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

    own_uid = file_uid(path)
    own_files = _own_files(tree / "translation" / "en" / translator, translator) if tree is not None else frozenset()
    file_headers = {k: clean_text(v) for k, v in english.items() if k.partition(":")[2].startswith("0.")}
    chapter = _chapter_title(file_headers)
    if own_uid.startswith("dhp"):
        chapter = next((v for k, v in file_headers.items() if k.endswith(":0.3")), chapter)
    docs = []
    for uid, seg_ids in by_uid.items():
        parsed = parse_uid(uid)
        if parsed is None:
            log.debug("skipping unknown uid %s in %s", uid, path)
            continue
        if uid != own_uid and uid in own_files:
            # an older collected edition (`pli-tv-bi-vb-sk1-75`) repeats texts that have files of their own
            log.debug("skipping %s in %s: it has its own file", uid, path)
            continue
        doc = _document(path, uid, parsed, seg_ids, english, pali, names, chapter, file_headers, translator)
        if doc is not None:
            docs.append(doc)
    return docs


def _document(path: Path, uid: str, parsed: ParsedUid, seg_ids: list[str], english: dict[str, str],
              pali: dict[str, str], names: _Names, chapter: str, file_headers: dict[str, str],
              translator: str) -> SourceDocument | None:
    book = parsed.info
    deep = parsed.basket == "vinaya"  # `pli-tv-kd1:1.1.1`: the paragraph is everything before the last number
    headers = {s: clean_text(english[s]) for s in seg_ids if s.partition(":")[2].startswith("0.")}
    body = [s for s in seg_ids if s not in headers]  # files are in reading order; keep it
    units, previous_para = [], None
    for seg_id in body:
        text = clean_text(english[seg_id])
        if not text:
            continue  # peyyāla: abbreviated in the translation; ranges still span it
        local = seg_id.partition(":")[2]
        para = (local.rpartition(".")[0] or local) if deep else local.split(".")[0]
        if local.endswith(".0") and len(text) < 60:
            # a section number or sub-heading (`1 `, `The Simile of the Saw`) opens a new section
            previous_para = None
            if text.rstrip(".").isdigit():
                continue
        units.append(
            Unit(
                text=text,
                ref=seg_id,
                pali=clean_text(pali.get(seg_id, "")),
                is_verse=book.verse,
                boundary=para != previous_para,
            )
        )
        previous_para = para
    if not units:
        return None
    title, title_pali = _title(parsed, headers, chapter, names), _pali_title(uid, pali, names)
    # SuttaCentral's names for the text where they differ from the titles shown: more ways to find it by name
    # (the four nikāyas and the Dhammapada keep the names they were found by before the whole canon came in)
    aliases = [n for n in (names.english.get(uid), names.pali.get(uid)) if n and n not in (title, title_pali)
               and parsed.book not in _FIRST_BOOKS]
    return SourceDocument(
        doc_id=doc_id_for(uid, translator, parsed.basket),
        sutta_id=parsed.sutta_id,
        title=title,
        title_pali=title_pali,
        aliases=aliases,
        source_path=str(path),
        kind="sutta",
        units=units,
        collection=parsed.collection,
        book=parsed.book_label,
        group=parsed.group,
        group_title=names.english.get(f"{parsed.book}{parsed.group}", "") if parsed.group else "",
        blurb=names.blurbs.get(uid, ""),
        headers=headers or {k: v for k, v in file_headers.items() if k.startswith(file_uid(path).split("-")[0])},
        basket=parsed.basket,
        translator=translator,
    )


def _chapter_title(headers: dict[str, str]) -> str:
    for key in headers:
        if key.endswith(":0.2"):
            return headers[key]
    return ""


# Header segments that are not a title: the recitation openings some Vinaya rules carry in their 0.x segments.
_NOT_A_TITLE = re.compile(r"^(?:homage|venerables?,)", re.IGNORECASE)
_FIRST_BOOKS = frozenset({"dn", "mn", "sn", "an", "dhp"})
_NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s+")


def _title(parsed: ParsedUid, headers: dict[str, str], chapter: str, names: _Names) -> str:
    book, uid = parsed.book, parsed.uid
    ordered = list(headers.values())
    if book == "dhp":
        # Dhp headers name the chapter (`1. Pairs`); the verse itself has no title
        chapter_name = next((v for k, v in headers.items() if k.endswith(":0.3")), chapter)
        return f"Dhammapada, {chapter_name.split('. ', 1)[-1]}" if chapter_name else "Dhammapada"
    if book in ("dn", "mn") and len(ordered) >= 2:
        return ordered[-1]
    if book in ("sn", "an") and len(ordered) >= 3:
        return ordered[-1]
    titled = [v for v in ordered if v and not _NOT_A_TITLE.match(v)]
    if parsed.basket == "vinaya":
        # SuttaCentral's short rule names ("Theft") say more than Brahmali's headers ("The second training rule…")
        return names.english.get(uid) or (titled[-1] if len(titled) >= 2 else "") or BOOKS[book].english
    if book in ("kp", "ud", "iti", "snp", "thag", "thig") and len(titled) >= 2:
        # the translator's own title, the last of "Book 1.4", "Chapter", "Title" (`3.12 Contemplating Pairs`)
        return _NUMBERED.sub("", titled[-1])
    if uid in names.english:
        return names.english[uid]
    return chapter


def _pali_title(uid: str, pali: dict[str, str], names: _Names) -> str:
    if uid in names.pali:
        return names.pali[uid]
    headers = [k for k in pali if k.startswith(uid + ":0.")]
    return clean_text(pali[headers[-1]]) if len(headers) >= 2 else ""
