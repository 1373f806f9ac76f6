"""The side panel as a reader's desk, in a real browser at a desktop's and a phone's width.

`scholar chat` on loopback over a tiny index of the canon corpus (MN 10, Thig 1.1 in Sujato's and Soma's English,
SuttaCentral-shaped parallels), built with the real local MiniLM; the LLM is the deterministic `scripted` provider.
Two questions in a row; the panel, opened by Chainlit itself or by a chip, must show the passage its header names.
Screenshots go to test-artifacts/ (gitignored); docs/ holds copies chosen by hand.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from e2e.test_chat_browser import ANSWER, ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, STARTER, serving_chat
from e2e.test_chat_browser import _ask as ask

from corpus import write_canon_corpus

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

FIRST = "What does MN 10 say about feelings?"
SECOND = "Different topic: what does Thig 1.1 say?"
CITED = ANSWER + ":has(a.element-link)"
# Elements that scroll sideways although nothing in them should: the page, the chat, the panel.
OVERFLOWING = """() => {
    const out = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth + 1) out.push("page " + doc.scrollWidth + " > " + window.innerWidth);
    for (const el of document.querySelectorAll("body *")) {
        const style = getComputedStyle(el);
        if (!["auto", "scroll"].includes(style.overflowX) || el.clientWidth === 0) continue;
        if (el.closest("pre, code, [role=dialog] [data-radix-scroll-area-viewport]")) continue;
        if (el.scrollWidth > el.clientWidth + 1) {
            const edge = el.getBoundingClientRect().right;
            const wide = [...el.querySelectorAll("*")].filter(c => c.getBoundingClientRect().right > edge + 1)
                .slice(0, 3).map(c => c.tagName + "." + c.className.toString().slice(0, 80) + " "
                                      + (c.innerText || "").slice(0, 40));
            out.push((el.id || el.className.toString().slice(0, 60)) + " " + el.scrollWidth + " > " + el.clientWidth
                     + " by " + wide.join(" | "));
        }
    }
    return out;
}"""


@pytest.fixture(scope="module")
def desk_url(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is needed for the browser test: apt-get install -y chromium (make setup does)")
    from indexing.pipeline import ingest
    from indexing.settings import ScholarSettings

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base = tmp_path_factory.mktemp("desk")
    tree = write_canon_corpus(base / "corpus")
    _lengthen(tree, "mn10", paragraphs=range(7, 25))
    nicknames = base / "nicknames.csv"
    nicknames.write_text("alias,sutta_id,evidence_segment\n", encoding="utf-8")
    settings = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree],
                               nicknames_csv=nicknames, chroma_url=None)
    ingest(settings, [tree], progress=False)  # the real local MiniLM: the app process loads the same model
    env = {
        "SCHOLAR_INDEX_DIR": str(base / "index"), "SCHOLAR_CORPUS_PATHS": json.dumps([str(tree)]),
        "SCHOLAR_NICKNAMES_CSV": str(nicknames), "SCHOLAR_LLM_PROVIDER": "scripted",
        "SCHOLAR_CHAT_DB": str(base / "chat" / "history.sqlite"), "SCHOLAR_MEMORY_DB": str(base / "memory.sqlite"),
        "SCHOLAR_CHAT_USERS": "",
    }
    with serving_chat(base, env, "e2e-desk-server.log") as url:
        yield url


def _lengthen(tree: Path, uid: str, paragraphs: range) -> None:
    """More lines at the end of a text (English and Pali), so that its panel shows a part of it and reads on."""
    for path in tree.rglob(f"{uid}_*.json"):
        segments = json.loads(path.read_text(encoding="utf-8"))
        pali = "root-pli" in path.name
        for para in paragraphs:
            for line in range(1, 6):
                segments[f"{uid}:{para}.{line}"] = (f"dhammesu dhammānupassī {para}.{line} " if pali else
                                                    f"Further on, passage {para}.{line}: a mendicant keeps "
                                                    f"observing principles. ")
        path.write_text(json.dumps(segments, ensure_ascii=False), encoding="utf-8")


def _answers(page):
    return page.locator(CITED)


def _wait_answer(page, n: int) -> None:
    from playwright.sync_api import expect

    expect(_answers(page)).to_have_count(n, timeout=180_000)
    # the final message is in place (the streamed one has no chips) and its follow-ups have been offered
    expect(_answers(page).nth(n - 1).get_by_role("button", name="Download trace")).to_be_visible(timeout=120_000)


def _refs(title: str) -> tuple[str, str]:
    """`MN 10:4.1–4.3` -> (`MN 10:4.1`, `MN 10:4.3`); a single segment is both ends."""
    first, _, end = title.partition("–")
    return first, (first.rpartition(":")[0] + ":" + end) if end else first


def _assert_panel_shows_its_header(page, not_in_body: str | None = None) -> str:
    """The panel's body (what a reader sees of it) is the passage its header names; returns the header."""
    from playwright.sync_api import expect

    content = page.locator("#side-view-content")
    expect(content).to_be_visible(timeout=30_000)
    expect(content.locator("table:visible").first).to_be_visible(timeout=30_000)
    title = page.locator("#side-view-title").inner_text().strip()
    body = content.inner_text()  # innerText: hidden elements are not read
    assert body.lstrip().startswith(title + " —") or body.lstrip().startswith(title + "\n"), (title, body[:300])
    first, last = _refs(title)
    assert first in body and last in body, (title, body[:600])
    if not_in_body:
        assert not_in_body not in body, (title, body[:600])
    return title


def _assert_clean_answer(page, n: int) -> None:
    answer = _answers(page).nth(n - 1)
    text = answer.inner_text()
    assert not re.search(r"(?m)^\s*>", text), text  # quotes are block quotes, not a literal "> "
    for chip in answer.locator("a.element-link").all_inner_texts():
        assert f"[{chip}]" not in text and f"[ {chip} ]" not in text, text
    transform = answer.locator("a.element-link").first.evaluate("a => getComputedStyle(a).textTransform")
    assert transform == "none"


def test_the_desk_at_1400_px(desk_url):
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(desk_url)
        page.locator(STARTER).wait_for(timeout=120_000)
        expect(page.locator('img[src*="/logo"]').first).to_be_visible()
        assert "Canon Scholar" in page.title()
        page.screenshot(path=str(ARTIFACTS / "desk-1400-landing.png"))

        ask(page, FIRST)
        _wait_answer(page, 1)
        first_title = _assert_panel_shows_its_header(page)  # opened by Chainlit itself
        assert first_title.startswith("MN 10:")
        _assert_clean_answer(page, 1)

        ask(page, SECOND)
        _wait_answer(page, 2)
        second_title = _assert_panel_shows_its_header(page, not_in_body="MN 10:")  # the newest, not a stale one
        assert second_title.startswith("Thig 1.1:")
        _assert_clean_answer(page, 2)
        assert not page.evaluate(OVERFLOWING)
        page.screenshot(path=str(ARTIFACTS / "desk-1400-answer.png"))

        # a chip of the first answer opens its own passage
        _answers(page).nth(0).locator("a.element-link").first.click()
        expect(page.locator("#side-view-title")).to_contain_text("MN 10:", timeout=10_000)
        _assert_panel_shows_its_header(page, not_in_body="Thig 1.1")
        panel = page.locator("#side-view-content")
        sc = panel.get_by_role("link", name="On SuttaCentral ↗").first
        assert re.fullmatch(r"https://suttacentral\.net/mn10/en/sujato#mn10:[\d.]+", sc.get_attribute("href") or "")

        # read on: the lines before or after, in the panel, under a header that names them
        shown = [t.replace("▶", "").strip() for t in panel.locator("tbody tr:visible td:first-child").all_inner_texts()]
        step = panel.get_by_role("link", name=re.compile(r"^(Next ▶|◀ Previous)$")).first
        direction = step.inner_text().strip()
        step.click()
        reading = panel.locator(".scholar-read")
        expect(reading).to_be_visible(timeout=20_000)
        title = page.locator("#side-view-title").inner_text().strip()
        assert title == reading.get_attribute("data-title") and title.startswith("MN 10:")
        assert reading.locator("h3").inner_text().startswith(title + " — ")
        rows = [t.replace("▶", "").strip() for t in reading.locator("tbody tr td:first-child").all_inner_texts()]
        assert rows[0] == _refs(title)[0] and rows[-1] == _refs(title)[1]
        assert not set(rows) & set(shown), (direction, shown, rows)  # it reads on, it does not repeat
        # and further on, the same way
        reading.get_by_role("link", name=direction).first.click()
        expect(page.locator("#side-view-title")).not_to_have_text(title, timeout=20_000)
        further = [t.replace("▶", "").strip()
                   for t in panel.locator(".scholar-read tbody tr td:first-child").all_inner_texts()]
        assert further and not set(further) & set(rows)
        assert not page.evaluate(OVERFLOWING)
        # the whole text, the cited lines still marked
        reading.get_by_role("link", name="Whole text").click()
        expect(page.locator("#side-view-title")).to_have_text(re.compile(r"MN 10$"), timeout=20_000)
        assert panel.locator(".scholar-read tr.cited").count() >= 1
        assert panel.locator(".scholar-read tbody tr").count() >= 20
        # the parallels, each with its SuttaCentral link
        panel.locator(".scholar-read").get_by_role("link", name=re.compile(r"^Parallels \(\d+\)$")).click()
        expect(page.locator("#side-view-title")).to_have_text("Parallels of MN 10", timeout=20_000)
        hrefs = panel.locator(".scholar-read ul.parallels a").evaluate_all("as => as.map(a => a.href)")
        assert any(h.startswith("https://suttacentral.net/ma98") for h in hrefs), hrefs
        # and back to the passage the chip opened
        panel.get_by_text("Back to the cited passage").click()
        expect(page.locator("#side-view-title")).to_contain_text("MN 10:", timeout=10_000)
        _assert_panel_shows_its_header(page)

        # the translator switch: Thig 1.1 in Soma's English, the same lines
        _answers(page).nth(1).locator("a.element-link").first.click()
        expect(page.locator("#side-view-title")).to_contain_text("Thig 1.1:", timeout=10_000)
        panel.get_by_role("link", name="Bhikkhu Soma").click()
        expect(panel.locator(".scholar-read")).to_contain_text("translated by Bhikkhu Soma", timeout=20_000)
        expect(panel.locator(".scholar-read")).to_contain_text("Sleep with ease, Elder")
        assert page.locator("#side-view-title").inner_text().strip().startswith("Thig 1.1:")
        page.screenshot(path=str(ARTIFACTS / "desk-1400-soma.png"))
        panel.locator(".scholar-read").get_by_role("link", name="Bhikkhu Sujato").click()
        expect(panel.locator(".scholar-read")).to_contain_text("Sleep softly, little nun", timeout=20_000)
        assert not page.evaluate(OVERFLOWING)

        # a reopened thread keeps its follow-ups and its trace download
        page.wait_for_url(re.compile(r"/thread/[0-9a-f-]+#?$"), timeout=30_000)  # a chip's link is "#"
        thread_url = page.url.rstrip("#")
        offered = _answers(page).nth(1).locator("button").all_inner_texts()
        reopened = context.new_page()
        reopened.goto(thread_url)
        expect(_answers(reopened)).to_have_count(2, timeout=60_000)
        for n in (0, 1):
            expect(_answers(reopened).nth(n).get_by_role("button", name="Download trace")).to_be_visible(
                timeout=30_000)
        again = _answers(reopened).nth(1).locator("button").all_inner_texts()
        follow_ups = [t for t in offered if t.strip() and "trace" not in t.lower()]
        assert follow_ups and all(t in again for t in follow_ups), (offered, again)
        _answers(reopened).nth(1).get_by_role("button", name="Download trace").click()
        expect(reopened.get_by_text(re.compile(r"trace-.*\.json")).first).to_be_visible(timeout=30_000)
        reopened.screenshot(path=str(ARTIFACTS / "desk-1400-reopened.png"))
        browser.close()


def test_the_desk_at_390_px(desk_url):
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                      device_scale_factor=2)
        page = context.new_page()
        page.goto(desk_url)
        page.locator(STARTER).wait_for(timeout=120_000)
        for n, question in enumerate((FIRST, SECOND), start=1):
            ask(page, question)
            _wait_answer(page, n)
            page.wait_for_timeout(1500)
            # the panel never opens by itself over the chat
            expect(page.locator("#side-view-content")).to_have_count(0)
            _assert_clean_answer(page, n)
            assert not page.evaluate(OVERFLOWING)
        page.screenshot(path=str(ARTIFACTS / "desk-390-answer.png"))

        _answers(page).nth(1).locator("a.element-link").first.click()
        _assert_panel_shows_its_header(page, not_in_body="MN 10:")
        panel = page.locator("#side-view-content")
        # English above the Pali, each as wide as the panel, not three thin columns
        row = panel.locator("tbody tr").filter(has_text="Sleep softly").first
        english, pali = row.locator("td").nth(1).bounding_box(), row.locator("td").nth(2).bounding_box()
        assert english and pali and pali["y"] >= english["y"] + english["height"] - 1
        assert english["width"] > 250
        assert not page.evaluate(OVERFLOWING)
        page.wait_for_timeout(800)  # the sheet's slide-in, for the picture
        page.screenshot(path=str(ARTIFACTS / "desk-390-panel.png"))

        panel.get_by_role("link", name="Bhikkhu Soma").click()
        expect(panel.locator(".scholar-read")).to_contain_text("Sleep with ease, Elder", timeout=20_000)
        row = panel.locator(".scholar-read tbody tr").filter(has_text="Sleep with ease").first
        english, pali = row.locator("td").nth(1).bounding_box(), row.locator("td").nth(2).bounding_box()
        assert english and pali and pali["y"] >= english["y"] + english["height"] - 1
        assert not page.evaluate(OVERFLOWING)
        page.screenshot(path=str(ARTIFACTS / "desk-390-soma.png"))
        browser.close()
