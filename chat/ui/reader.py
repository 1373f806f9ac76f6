"""Reading on from a citation: the passages before and after it, the whole text, another translator's English, the
text's parallels, and the passage on SuttaCentral.

`reading` cuts a window of a text out of the docstore (the same records GET /api/suttas serves; the translators and
parallels come from the same lookup helpers). `panel_links` gives the side panel its Markdown links; `reading_html`
renders a reading as escaped HTML, either a page of its own (the links open it in a new tab) or, with
`part=panel`, a fragment that public/scholar.js loads into the side panel in place of the passage.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode

from chat.errors import ChatError
from indexing.vocabulary import segment_ref, sutta_id_to_uid, translator_name
from tools.texts.lookup import ParallelText, parallels_of

READ_ROUTE = "/scholar-read"
READ_SPAN = 12  # lines one step of "previous" or "next" shows
MAX_WHOLE = 1500  # lines of a whole text shown at once; a longer text goes on with "next"
SUTTACENTRAL = "https://suttacentral.net"


class UnknownTextError(ChatError):
    """The reading names a text or segment the library does not hold."""


@dataclass
class Row:
    seg_id: str
    ref: str
    en: str
    pali: str
    cited: bool = False


@dataclass
class Reading:
    uid: str  # the text's default doc_id: `mn21`, `thig1.1`
    sutta_id: str
    title: str
    collection: str
    translator: str
    translators: list[str]
    rows: list[Row]
    whole: bool
    prev_at: str | None  # where the passage before this one starts, None at the opening
    next_at: str | None  # the first line after this one, None at the end
    mark: str | None  # the cited lines, `first~last`, kept marked while reading on
    source_uid: str  # SuttaCentral's uid of the file the text is in (`dhp1-20` for Dhp 5)
    parallels: list[ParallelText] = field(default_factory=list)
    prev_text: str | None = None  # the text before this one in its book (`dhp4` before `dhp5`), read at its edge
    next_text: str | None = None

    @property
    def span_ref(self) -> str:
        if not self.rows:
            return self.sutta_id
        if self.whole and self.prev_at is None and self.next_at is None:
            return self.sutta_id
        return range_ref(self.rows[0].seg_id, self.rows[-1].seg_id)


def range_ref(first: str, last: str) -> str:
    """`mn21:3.1`, `mn21:3.8` -> `MN 21:3.1–3.8`, as citations write a range."""
    ref = segment_ref(first)
    return ref if last == first else f"{ref}–{last.partition(':')[2]}"


def read_url(uid: str, *, translator: str = "", at: str | None = None, whole: bool = False, view: str = "",
             mark: str | None = None) -> str:
    params = {k: v for k, v in (("translator", translator), ("at", at or ""), ("whole", "1" if whole else ""),
                                ("view", view), ("mark", mark or "")) if v}
    return f"{READ_ROUTE}/{quote(uid, safe='')}" + (f"?{urlencode(params)}" if params else "")


def suttacentral_url(source_uid: str, translator: str, seg_id: str | None = None) -> str:
    """`https://suttacentral.net/<uid>/en/<translator>#<segment>`, the passage in SuttaCentral's reader."""
    url = f"{SUTTACENTRAL}/{quote(source_uid, safe='')}/en/{quote(translator, safe='')}"
    return url + (f"#{quote(seg_id, safe=':.-')}" if seg_id else "")


def parallel_url(p: ParallelText) -> str:
    uid = sutta_id_to_uid(p.sutta_id) if p.in_library else p.sutta_id
    return f"{SUTTACENTRAL}/{quote(uid, safe='')}"


# ---- the reading -------------------------------------------------------------------------------------------------
def reading(library, uid: str, *, translator: str | None = None, at: str | None = None, whole: bool = False,
            mark: str | None = None, span: int = READ_SPAN) -> Reading:
    """A window of `span` lines of the text `uid` from `at` (its opening when None), or all of it; in `translator`'s
    English when the library holds it, else the default translation's."""
    docstore = library.docstore
    base = docstore.document(uid.partition("@")[0])
    if base is None or not base.sutta_id:
        raise UnknownTextError(f"The library holds no text {uid!r}.")
    versions = {d.translator: d for d in docstore.translations(base.sutta_id) if d.translator}
    doc = versions.get(translator or "", base)
    segments = [s for s in docstore.segments(doc.doc_id) if s.seg_id]
    if not segments:
        raise UnknownTextError(f"{base.sutta_id} has no lines to read.")
    position = {s.seg_id: i for i, s in enumerate(segments)}
    if at is not None and at not in position:
        raise UnknownTextError(f"{base.sutta_id} has no line {at!r}.")
    start = position.get(at or "", 0)
    shown = [i for i in range(start, len(segments)) if segments[i].en.strip() or segments[i].pali.strip()]
    shown = shown[:MAX_WHOLE] if whole else shown[:span]
    if not shown:
        shown = [start]
    marked = _marked(mark, position)
    earlier = [i for i in range(start - 1, -1, -1) if segments[i].en.strip() or segments[i].pali.strip()][:span]
    rows = [Row(segments[i].seg_id or "", segment_ref(segments[i].seg_id or ""), segments[i].en.strip(),
                segments[i].pali.strip(), marked is not None and marked[0] <= i <= marked[1]) for i in shown]
    return Reading(
        uid=base.doc_id, sutta_id=base.sutta_id, title=doc.title or base.title, collection=base.collection,
        translator=doc.translator, translators=list(versions), rows=rows, whole=whole,
        prev_at=segments[earlier[-1]].seg_id if earlier else None,
        next_at=segments[shown[-1] + 1].seg_id if shown[-1] + 1 < len(segments) else None,
        mark=mark if marked is not None else None, source_uid=source_uid(doc.source_path, base.doc_id),
        parallels=parallels_of(library, base.doc_id),
        prev_text=library.catalog.neighbour(base.doc_id, -1), next_text=library.catalog.neighbour(base.doc_id, 1),
    )


def _marked(mark: str | None, position: dict[str, int]) -> tuple[int, int] | None:
    if not mark:
        return None
    first, _, last = mark.partition("~")
    lo, hi = position.get(first), position.get(last or first)
    if lo is None or hi is None:
        return None
    return (lo, hi) if lo <= hi else (hi, lo)


def source_uid(source_path: str, doc_id: str) -> str:
    """The uid of the SuttaCentral file a text comes from (`dhp1-20_translation-en-sujato.json` -> `dhp1-20`)."""
    name = Path(source_path).name
    return name.split("_", 1)[0] if "_translation-" in name else doc_id.partition("@")[0]


# ---- the side panel's links --------------------------------------------------------------------------------------
def panel_links(library, doc_id: str, first: str, last: str, cited: tuple[str, str]) -> list[str]:
    """Markdown lines under a passage's heading: read on, the whole text, SuttaCentral; the translations; the
    parallels. Every URL is built here from IDs, never from model or corpus text."""
    docstore = library.docstore
    doc = docstore.document(doc_id)
    if doc is None or not doc.sutta_id:
        return []
    uid = doc_id.partition("@")[0]
    segments = [s for s in docstore.segments(doc_id) if s.seg_id]
    position = {s.seg_id: i for i, s in enumerate(segments)}
    if first not in position or last not in position:
        return []
    lo, hi = position[first], position[last]
    mark = f"{cited[0]}~{cited[1]}"
    translator = doc.translator
    before = [i for i in range(lo - 1, -1, -1) if segments[i].en.strip() or segments[i].pali.strip()][:READ_SPAN]
    nav = []
    if before:
        nav.append(f"[◀ Previous]({read_url(uid, translator=translator, at=segments[before[-1]].seg_id, mark=mark)})")
    elif (prev_text := library.catalog.neighbour(uid, -1)) is not None:
        nav.append(f"[◀ {segment_ref(prev_text)}]({read_url(prev_text, translator=translator)})")
    if hi + 1 < len(segments):
        nav.append(f"[Next ▶]({read_url(uid, translator=translator, at=segments[hi + 1].seg_id, mark=mark)})")
    elif (next_text := library.catalog.neighbour(uid, 1)) is not None:
        nav.append(f"[{segment_ref(next_text)} ▶]({read_url(next_text, translator=translator)})")
    nav.append(f"[Whole text]({read_url(uid, translator=translator, whole=True, mark=mark)})")
    if translator:
        nav.append(f"[On SuttaCentral ↗]({suttacentral_url(source_uid(doc.source_path, uid), translator, cited[0])})")
    lines = [" · ".join(nav)]
    versions = [d.translator for d in docstore.translations(doc.sutta_id) if d.translator]
    if len(versions) > 1:
        choices = [f"**{_escape_md(translator_name(t))}**" if t == translator else
                   f"[{_escape_md(translator_name(t))}]({read_url(uid, translator=t, at=first, mark=mark)})"
                   for t in versions]
        lines.append("Translation: " + " · ".join(choices))
    n_parallels = len(parallels_of(library, uid))
    if n_parallels:
        lines.append(f"[Parallels ({n_parallels})]({read_url(uid, translator=translator, view='parallels')})")
    return lines


def _escape_md(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_{}[]()#+-.!|<>~&" else c for c in text)


# ---- HTML --------------------------------------------------------------------------------------------------------
def reading_html(r: Reading, *, view: str = "", page: bool = True) -> str:
    """The reading as HTML: a page of its own, or (page=False) the fragment the side panel shows."""
    e = html.escape
    title = f"Parallels of {r.sutta_id}" if view == "parallels" else r.span_ref
    parts = [f'<div class="scholar-read" data-title="{e(title)}">',
             f"<h3>{e(title)} — {e(r.title)}</h3>" if r.title else f"<h3>{e(title)}</h3>"]
    meta = [m for m in (r.collection, f"translated by {translator_name(r.translator)}" if r.translator else "") if m]
    if meta:
        parts.append(f'<p class="meta">{e(" · ".join(meta))}</p>')
    if view == "parallels":
        parts.append(_nav([_link(read_url(r.uid, translator=r.translator, mark=r.mark), f"Read {r.sutta_id}")]))
        parts.append(_parallels(r))
    else:
        parts.append(_reading_nav(r))
        if len(r.translators) > 1:
            choices = [f'<span class="current">{e(translator_name(t))}</span>' if t == r.translator else
                       _link(read_url(r.uid, translator=t, at=None if r.whole else r.rows[0].seg_id, whole=r.whole,
                                      mark=r.mark), translator_name(t)) for t in r.translators]
            parts.append(f'<nav class="translations">Translation: {" · ".join(choices)}</nav>')
        parts.append(_table(r))
        if r.next_at is not None and r.rows:
            parts.append(_nav([_link(read_url(r.uid, translator=r.translator, at=r.next_at, mark=r.mark),
                                     "Next ▶")]))
        elif r.next_text is not None:
            parts.append(_nav([_link(read_url(r.next_text, translator=r.translator),
                                     f"{segment_ref(r.next_text)} ▶")]))
    if not page:
        parts.append('<p><a href="#" data-scholar-back>Back to the cited passage</a></p>')
    parts.append("</div>")
    body = "\n".join(parts)
    if not page:
        return body
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)} — Canon Scholar</title><link rel=\"stylesheet\" href=\"/public/scholar.css\">"
            "<style>body{font-family:Georgia,serif;max-width:60rem;margin:1rem auto;padding:0 1rem;line-height:1.5}"
            "</style></head><body class=\"side-text\">\n" + body + "\n</body></html>\n")


def _reading_nav(r: Reading) -> str:
    links = []
    if r.prev_at is not None:
        links.append(_link(read_url(r.uid, translator=r.translator, at=r.prev_at, mark=r.mark), "◀ Previous"))
    elif r.prev_text is not None:  # at the opening: the text before, in its book
        links.append(_link(read_url(r.prev_text, translator=r.translator), f"◀ {segment_ref(r.prev_text)}"))
    if r.next_at is not None:
        links.append(_link(read_url(r.uid, translator=r.translator, at=r.next_at, mark=r.mark), "Next ▶"))
    elif r.next_text is not None:
        links.append(_link(read_url(r.next_text, translator=r.translator), f"{segment_ref(r.next_text)} ▶"))
    if not r.whole:
        links.append(_link(read_url(r.uid, translator=r.translator, whole=True, mark=r.mark), "Whole text"))
    if r.translator and r.rows:
        links.append(_link(suttacentral_url(r.source_uid, r.translator, r.rows[0].seg_id), "On SuttaCentral ↗",
                           external=True))
    if r.parallels:
        links.append(_link(read_url(r.uid, translator=r.translator, view="parallels", mark=r.mark),
                           f"Parallels ({len(r.parallels)})"))
    return _nav(links)


def _table(r: Reading) -> str:
    e = html.escape
    rows = ['<table><thead><tr><th></th><th>English</th><th>Pāli</th></tr></thead><tbody>']
    for row in r.rows:
        ref = f"▶ {row.ref}" if row.cited else row.ref
        cls = ' class="cited"' if row.cited else ""
        rows.append(f'<tr{cls} id="{e(row.seg_id)}"><td>{e(ref)}</td>'
                    f"<td>{_lines(row.en)}</td><td lang=\"pi\">{_lines(row.pali)}</td></tr>")
    rows.append("</tbody></table>")
    return "".join(rows)


def _parallels(r: Reading) -> str:
    e = html.escape
    if not r.parallels:
        return "<p>SuttaCentral lists no parallels of this text.</p>"
    items = []
    for p in r.parallels:
        read = (" " + _link(read_url(sutta_id_to_uid(p.sutta_id)), "read here")) if p.in_library else ""
        items.append(f"<li>{e(p.describe())} {_link(parallel_url(p), 'SuttaCentral ↗', external=True)}{read}</li>")
    return f'<ul class="parallels">{"".join(items)}</ul>'


def _lines(text: str) -> str:
    return "<br>".join(html.escape(line) for line in text.splitlines() if line.strip())


def _link(url: str, label: str, *, external: bool = False) -> str:
    target = ' target="_blank" rel="noopener noreferrer"' if external else ""
    return f'<a href="{html.escape(url)}"{target}>{html.escape(label)}</a>'


def _nav(links: list[str]) -> str:
    return f"<nav>{' · '.join(links)}</nav>" if links else ""


# ---- the route ---------------------------------------------------------------------------------------------------
def mount_read_route(app, runtime) -> None:
    """GET /scholar-read/{uid}: a reading for a logged-in reader, ahead of Chainlit's catch-all UI route (as the
    stored-file route is). A second call (Chainlit reloading the app) replaces the first route."""
    from chainlit.auth import get_current_user
    from fastapi import Depends, HTTPException
    from fastapi.concurrency import run_in_threadpool
    from fastapi.responses import HTMLResponse

    async def serve_reading(uid: str, translator: str = "", at: str | None = None, whole: bool = False,
                            view: str = "", mark: str | None = None, part: str = "",
                            user=Depends(get_current_user)) -> HTMLResponse:
        if user is None:
            raise HTTPException(status_code=401, detail="Not logged in")
        library = await run_in_threadpool(runtime.library)
        try:
            found = await run_in_threadpool(reading, library, uid, translator=translator or None, at=at,
                                            whole=whole, mark=mark)
        except UnknownTextError as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from exc
        return HTMLResponse(reading_html(found, view=view, page=part != "panel"),
                            headers={"X-Content-Type-Options": "nosniff"})

    path = READ_ROUTE + "/{uid}"
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != path]
    app.add_api_route(path, serve_reading, methods=["GET"])
    app.router.routes.insert(0, app.router.routes.pop())
