"""Reading on from a citation: windows of a text, the whole text, another translator, parallels, SuttaCentral links,
and the side panel's links to them (chat/ui/reader.py), over the tiny canon corpus."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from chat.pipeline.answer import Citation
from chat.ui.reader import (
    READ_ROUTE,
    UnknownTextError,
    panel_links,
    reading,
    reading_html,
    suttacentral_url,
)
from chat.ui.sources import citation_panel

from corpus import write_canon_corpus
from fakes import tiny_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    base = tmp_path_factory.mktemp("reader")
    tree = write_canon_corpus(base / "corpus")
    return tiny_library(base, tree)


def _segments(lib, doc_id):
    return [s for s in lib.docstore.segments(doc_id) if s.seg_id and (s.en.strip() or s.pali.strip())]


def test_a_reading_goes_on_where_the_last_one_stopped_and_back(lib):
    lines = _segments(lib, "mn10")
    first = reading(lib, "mn10", span=3)
    assert [r.seg_id for r in first.rows] == [s.seg_id for s in lines[:3]]
    assert first.prev_at is None and first.next_at is not None
    following = reading(lib, "mn10", at=first.next_at, span=3)
    assert following.rows[0].seg_id == lines[3].seg_id  # nothing skipped, nothing repeated
    back = reading(lib, "mn10", at=following.prev_at, span=3)
    assert [r.seg_id for r in back.rows] == [r.seg_id for r in first.rows]


def test_the_whole_text_and_its_cited_lines(lib):
    lines = _segments(lib, "mn10")
    whole = reading(lib, "mn10", whole=True, mark=f"{lines[2].seg_id}~{lines[3].seg_id}")
    assert [r.seg_id for r in whole.rows] == [s.seg_id for s in lines]
    assert [r.seg_id for r in whole.rows if r.cited] == [lines[2].seg_id, lines[3].seg_id]
    assert whole.next_at is None and whole.span_ref == "MN 10"


def test_another_translator_reads_the_same_lines_in_other_words(lib):
    sujato = reading(lib, "thig1.1", at="thig1.1:1.1", span=2)
    soma = reading(lib, "thig1.1", translator="soma", at="thig1.1:1.1", span=2)
    assert sujato.translators == ["sujato", "soma"] and soma.translator == "soma"
    assert [r.seg_id for r in soma.rows] == [r.seg_id for r in sujato.rows]
    assert soma.rows[0].en.startswith("“Sleep with ease, Elder") and soma.rows[0].en != sujato.rows[0].en
    page = reading_html(soma, page=False)
    assert 'class="current">Bhikkhu Soma<' in page
    # the switch back keeps the place: the same first line, in Sujato's English
    assert 'href="/scholar-read/thig1.1?translator=sujato&amp;at=thig1.1%3A1.1">Bhikkhu Sujato<' in page


def test_unknown_texts_and_lines_are_refused(lib):
    with pytest.raises(UnknownTextError):
        reading(lib, "mn999")
    with pytest.raises(UnknownTextError):
        reading(lib, "mn10", at="mn10:99.99")


def test_parallels_link_to_suttacentral_and_to_the_texts_held_here(lib):
    r = reading(lib, "mn10")
    assert r.parallels
    page = reading_html(r, view="parallels", page=False)
    assert 'data-title="Parallels of MN 10"' in page
    # a text the library holds: its SuttaCentral page and a reading here
    assert 'href="https://suttacentral.net/pli-tv-bu-pm"' in page and 'href="/scholar-read/pli-tv-bu-pm"' in page
    # known by ID only: SuttaCentral's page, no reading here
    assert 'href="https://suttacentral.net/ma98"' in page and 'href="/scholar-read/ma98"' not in page


def test_suttacentral_links_name_the_file_translator_and_segment(lib):
    assert suttacentral_url("mn21", "sujato", "mn21:3.1") == "https://suttacentral.net/mn21/en/sujato#mn21:3.1"
    r = reading(lib, "thig1.1", translator="soma", at="thig1.1:1.1", span=2)
    assert "https://suttacentral.net/thig1.1/en/soma#thig1.1:1.1" in reading_html(r, page=False)


def test_reading_html_escapes_the_text_and_names_what_it_shows(lib):
    r = reading(lib, "mn10", span=3)
    r.rows[0].en = '<img src=x onerror="alert(1)">'
    page = reading_html(r)
    assert "<img" not in page and "&lt;img src=x" in page
    assert page.startswith("<!doctype html>")
    title = re.search(r'data-title="([^"]+)"', page).group(1)
    assert title == r.span_ref and f"<h3>{title} — " in page
    assert all(row.ref in page for row in r.rows)


def test_the_side_panel_links_read_on_from_the_passage_it_shows(lib):
    chunk = next(c for c in lib.docstore.iter_chunks() if c.doc_id == "thig1.1")
    citation = Citation(ref=f"Thig 1.1:{chunk.segment_start.partition(':')[2]}", sutta_id="Thig 1.1",
                        title="", chunk_id=chunk.chunk_id, segment_start=chunk.segment_start,
                        segment_end=chunk.segment_start, translator="sujato")
    md = citation_panel(lib, citation)
    links = dict(re.findall(r"\[([^\]]+)\]\(([^)]+)\)", md))
    assert links["Whole text"].startswith(f"{READ_ROUTE}/thig1.1?")
    assert parse_qs(urlparse(links["Whole text"]).query)["mark"] == [f"{chunk.segment_start}~{chunk.segment_start}"]
    assert links["On SuttaCentral ↗"] == f"https://suttacentral.net/thig1.1/en/sujato#{chunk.segment_start}"
    soma = parse_qs(urlparse(links["Bhikkhu Soma"]).query)
    assert soma["translator"] == ["soma"]
    assert "Translation: **Bhikkhu Sujato**" in md


def test_panel_links_offer_no_previous_at_the_opening_and_no_next_at_the_end(lib):
    lines = [s.seg_id for s in lib.docstore.segments("mn10") if s.seg_id]
    opening = " ".join(panel_links(lib, "mn10", lines[0], lines[1], (lines[0], lines[0])))
    assert "Previous" not in opening and "Next ▶" in opening and "◀ MN" not in opening  # MN 10 opens the book here
    ending = " ".join(panel_links(lib, "mn10", lines[-2], lines[-1], (lines[-1], lines[-1])))
    assert "Previous" in ending and "Next ▶" not in ending
    assert "[MN 21 ▶](/scholar-read/mn21?translator=sujato)" in ending  # the next text of the book instead


def test_at_the_end_of_a_text_the_next_text_of_its_book_is_offered(lib):
    whole = reading(lib, "mn10", whole=True)
    assert whole.next_at is None and whole.next_text == "mn21" and whole.prev_text is None
    page = reading_html(whole, page=False)
    assert re.search(r'<a href="/scholar-read/mn21\?translator=sujato">MN 21 ▶</a>', page)
    opening = reading_html(reading(lib, "mn21", span=2), page=False)
    assert re.search(r'<a href="/scholar-read/mn10\?translator=sujato">◀ MN 10</a>', opening)


def test_the_read_route_serves_a_page_or_the_panels_fragment_to_a_logged_in_reader(lib):
    from types import SimpleNamespace

    from chainlit.auth import get_current_user
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from chat.ui.reader import mount_read_route

    app = FastAPI()
    mount_read_route(app, SimpleNamespace(library=lambda: lib))
    client = TestClient(app)
    assert client.get("/scholar-read/mn10").status_code == 401  # no login, no reading

    app.dependency_overrides[get_current_user] = lambda: SimpleNamespace(id="user-1", identifier="reader")
    page = client.get("/scholar-read/thig1.1", params={"translator": "soma", "at": "thig1.1:1.1"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text.startswith("<!doctype html>") and "Sleep with ease, Elder" in page.text
    fragment = client.get("/scholar-read/thig1.1", params={"part": "panel", "view": "parallels"})
    assert fragment.text.startswith('<div class="scholar-read" data-title="Parallels of Thig 1.1">')
    assert "data-scholar-back" in fragment.text
    assert client.get("/scholar-read/mn999").status_code == 404
    assert client.get("/scholar-read/mn10", params={"at": "mn10:99.9"}).status_code == 404
