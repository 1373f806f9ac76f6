"""The chat in a real browser: `scholar chat` on loopback, Debian's chromium driven by Playwright.

A tiny index (the tools' test corpus plus a segment carrying HTML/script) is built with the real local MiniLM, so
the app process builds the same embedder itself; the LLM is the deterministic `scripted` provider. Screenshots go
to test-artifacts/ (gitignored).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from corpus import NICKNAMES, write_tools_corpus
from local_server import free_port, running

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
# Ingest reduces Bilara's short markup (`<j>`, `<i>`) to its words, so the script tag reaches the reader as words
# only; the image tag is longer than any markup ingest reads, so it reaches the browser whole, and the UI's escaping
# is all that stands between it and the page.
HOSTILE = ('Fire <script>window.__pwned = 1</script> and <img src="x" title="' + "ash " * 80
           + '" onerror="window.__pwned = 2"> burn.')
ANSWER = '[data-step-type="assistant_message"]'
# by id: once a thread about the Fire Sermon exists, the history sidebar holds a button with that name too
STARTER = "#starter-the-fire-sermon"


def _build_index(base: Path) -> dict[str, str]:
    from indexing.pipeline import ingest
    from indexing.settings import ScholarSettings

    tree = write_tools_corpus(base / "corpus")
    burning = next(tree.rglob("sn35.28_translation-en-sujato.json"))
    segments = json.loads(burning.read_text(encoding="utf-8"))
    segments["sn35.28:2.2"] = HOSTILE + " "
    burning.write_text(json.dumps(segments, ensure_ascii=False), encoding="utf-8")
    nicknames = base / "nicknames.csv"
    nicknames.write_text(NICKNAMES, encoding="utf-8")
    env = {
        "SCHOLAR_INDEX_DIR": str(base / "index"),
        "SCHOLAR_CORPUS_PATHS": json.dumps([str(tree)]),
        "SCHOLAR_NICKNAMES_CSV": str(nicknames),
        "SCHOLAR_LLM_PROVIDER": "scripted",
        "SCHOLAR_CHAT_DB": str(base / "chat" / "history.sqlite"),
        "SCHOLAR_MEMORY_DB": str(base / "memory.sqlite"),
        "SCHOLAR_CHAT_USERS": "",
    }
    settings = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree],
                               nicknames_csv=nicknames, chroma_url=None)
    ingest(settings, [tree], progress=False)  # the real local MiniLM: the app process loads the same model
    return env


@pytest.fixture(scope="module")
def chat_url(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is needed for the browser test: apt-get install -y chromium (make setup does)")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base = tmp_path_factory.mktemp("e2e")
    with serving_chat(base, _build_index(base), "e2e-chat-server.log") as url:
        yield url


@contextlib.contextmanager
def serving_chat(base: Path, settings_env: dict[str, str], artifact: str) -> Iterator[str]:
    """`scholar chat` on a free loopback port with these SCHOLAR_ variables (none of the caller's own), its log
    kept in test-artifacts/ under `artifact` whatever happens."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCHOLAR_", "CHAINLIT_AUTH"))}
    env.update(settings_env)
    port = free_port()
    scholar = shutil.which("scholar", path=str(Path(os.sys.executable).parent)) or "scholar"
    url = f"http://127.0.0.1:{port}"
    try:
        with running([scholar, "chat", "--host", "127.0.0.1", "--port", str(port), "--headless"], url + "/health",
                     base / "chat.log", timeout=120, env=env, cwd=REPO, start_new_session=True):
            yield url
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(base / "chat.log", ARTIFACTS / artifact)


def _ask(page, question: str) -> None:
    """Type and send once the composer is live (the socket connected, the header login's redirect settled)."""
    from playwright.sync_api import expect

    asked = page.locator('[data-step-type="user_message"]')
    before = asked.count()
    for _ in range(12):
        page.fill("#chat-input", question)
        try:
            expect(page.locator("#chat-submit")).to_be_enabled(timeout=10_000)
            page.locator("#chat-submit").click(timeout=5_000)
        except (AssertionError, PlaywrightTimeout):
            if asked.count() > before:  # it did go out; never send a question twice
                return
            continue  # the page re-rendered (e.g. after /login -> /) and dropped the text: type it again
        return
    raise AssertionError("the chat input never became ready")


async def _ask_async(page, question: str) -> None:
    from playwright.async_api import expect

    asked = page.locator('[data-step-type="user_message"]')
    before = await asked.count()
    for _ in range(12):
        await page.fill("#chat-input", question)
        try:
            await expect(page.locator("#chat-submit")).to_be_enabled(timeout=10_000)
            await page.locator("#chat-submit").click(timeout=5_000)
        except (AssertionError, PlaywrightTimeout):
            if await asked.count() > before:
                return
            continue
        return
    raise AssertionError("the chat input never became ready")


def _browser(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def test_ask_stream_cite_steps_follow_up_trace(chat_url):
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        frames: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
        page.goto(chat_url)
        page.locator(STARTER).wait_for(timeout=120_000)

        _ask(page, "What does the Fire Sermon say is burning?")
        answer = page.locator(ANSWER).filter(has=page.locator("a.element-link")).first
        expect(answer).to_be_visible(timeout=180_000)
        page.screenshot(path=str(ARTIFACTS / "e2e-1-answer.png"))
        # the lines that answer came first, as a step, and the checked answer was streamed after them (Chainlit
        # sends a message's first token as `stream_start`, the rest as `stream_token`): nothing shown is withdrawn
        stream_at = [i for i, f in enumerate(frames) if '"stream_start"' in f or '"stream_token"' in f]
        assert stream_at and any("burning" in frames[i].lower() for i in stream_at), "the answer was not streamed"
        assert any("burning" in f.lower() for f in frames[:stream_at[0]]), "the evidence did not come first"
        text = answer.inner_text()
        assert "SN 35.28" in text and "Sources:" in text

        # a citation opens the passage in the side panel: cited lines marked, Pali beside them, context around
        answer.locator("a.element-link").first.click()
        panel = page.locator("#side-view-content")
        expect(panel).to_contain_text("▶", timeout=20_000)
        panel_text = panel.inner_text()
        assert "Burning" in panel_text and "ādittaṁ" in panel_text and "Pāli" in panel_text
        assert panel_text.count("SN 35.28:") >= 3  # more than the cited line
        page.screenshot(path=str(ARTIFACTS / "e2e-2-citation-panel.png"))

        # HTML in a document is shown as text, never run or rendered
        assert "<script>" not in panel_text and "Fire window.__pwned = 1 and" in panel_text  # reduced at ingest
        assert '<img src="x"' in panel_text and 'onerror="window' in panel_text  # shown, as text
        assert page.evaluate("window.__pwned") is None
        assert page.locator('img[src="x"]').count() == 0

        # the tool steps: named, expandable, with input, readable output and duration
        step = page.locator('button[id^="step-"]').first
        expect(step).to_contain_text("Used")
        step.click()
        steps_area = page.locator('[data-step-type="tool"]').first
        expect(steps_area).to_contain_text(" ms", timeout=10_000)
        page.screenshot(path=str(ARTIFACTS / "e2e-3-steps.png"))

        # download trace: a JSON file element appears
        page.get_by_role("button", name="Download trace").first.click()
        expect(page.get_by_text(re.compile(r"trace-.*\.json")).first).to_be_visible(timeout=30_000)

        # a follow-up button asks its question in the same chat
        icon = page.locator("svg[class*=\"lucide-message-circle-question\"]")
        follow = page.locator(f"{ANSWER} button").filter(has=icon)
        label = follow.first.inner_text().strip()
        assert label
        before = page.locator(ANSWER).filter(has=page.locator("a.element-link")).count()
        follow.first.click()
        expect(page.locator('[data-step-type="user_message"]').last).to_contain_text(label[:30], timeout=30_000)
        expect(page.locator(ANSWER).filter(has=page.locator("a.element-link"))).to_have_count(
            before + 1, timeout=180_000)
        page.screenshot(path=str(ARTIFACTS / "e2e-4-follow-up.png"), full_page=True)

        # kind refusal of an over-long question, and the chat still answers afterwards
        _ask(page, "why? " * 500)
        expect(page.get_by_text("the limit is 2,000").first).to_be_visible(timeout=30_000)
        browser.close()


def test_a_reopened_chat_opens_its_passages_in_the_side_panel(chat_url):
    """A panel of a past chat is loaded from the history's stored files (/scholar-files/...), which must be served
    ahead of Chainlit's catch-all UI route: shadowed, the panel got the chat's own index page."""
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = _browser(p)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})  # one reader, logged in once
        page = context.new_page()
        page.goto(chat_url)
        page.locator(STARTER).wait_for(timeout=120_000)
        _ask(page, "What does the Fire Sermon say is burning?")
        cited = page.locator(ANSWER).filter(has=page.locator("a.element-link"))
        expect(cited.first).to_be_visible(timeout=180_000)
        page.wait_for_url(re.compile(r"/thread/[0-9a-f-]+$"), timeout=30_000)
        thread_url = page.url
        # Chainlit stores a message's elements in a task of their own, after it has shown them: wait until the
        # thread as stored holds every passage the answer links to, as it would long before a reader came back.
        linked = {t.strip() for t in cited.first.locator("a.element-link").all_inner_texts()}
        stored: set[str] = set()
        for _ in range(120):
            thread = context.request.get(chat_url + "/project/thread/" + thread_url.rsplit("/", 1)[1]).json()
            stored = {e["name"] for e in thread.get("elements") or [] if e.get("url")}
            if linked <= stored:
                break
            page.wait_for_timeout(500)
        assert linked <= stored, (linked, stored)
        page.close()
        reopened = context.new_page()  # a new tab: the thread comes from the stored history, not the open session
        files: list[tuple[int, str]] = []
        reopened.on("response", lambda r: files.append((r.status, r.headers.get("content-type", "")))
                    if "/scholar-files/" in r.url else None)
        reopened.goto(thread_url)
        link = reopened.locator(ANSWER).locator("a.element-link").first
        expect(link).to_be_visible(timeout=60_000)
        link.click()
        panel = reopened.locator("#side-view-content")
        expect(panel).to_contain_text("▶", timeout=30_000)
        text = panel.inner_text()
        reopened.screenshot(path=str(ARTIFACTS / "e2e-5-reopened-panel.png"))
        assert "Burning" in text and "ādittaṁ" in text and "<html" not in text.lower()
        assert files and all(status == 200 and "html" not in kind for status, kind in files), files
        browser.close()


ELSEWHERE = "<!doctype html><title>another site on this host</title><p>nothing here"
CROSS_SITE_READS = """async (chat) => {
    const tries = {
        threads: [chat + "/project/threads", {method: "POST", credentials: "include",
                  headers: {"Content-Type": "application/json"},
                  body: JSON.stringify({pagination: {first: 20}, filter: {}})}],
        user: [chat + "/user", {credentials: "include"}],
        login: [chat + "/auth/header", {method: "POST", credentials: "include"}],
    };
    const out = {};
    for (const [name, [url, init]] of Object.entries(tries)) {
        try {
            const r = await fetch(url, init);
            out[name] = "read " + r.status + ": " + (await r.text()).slice(0, 200);
        } catch (e) {
            out[name] = "blocked";
        }
    }
    out.socket = await new Promise((done) => {
        const ws = new WebSocket(chat.replace("http", "ws") + "/ws/socket.io/?EIO=4&transport=websocket");
        ws.onopen = () => { ws.close(); done("open"); };
        ws.onerror = () => done("refused");
        setTimeout(() => done("no answer"), 10000);
    });
    return out;
}"""


@contextlib.contextmanager
def _another_site() -> Iterator[str]:
    """A page on another port of the same host: the same site for the browser's SameSite cookie, another origin."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = ELSEWHERE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join(10)


def test_a_page_on_another_port_cannot_read_the_chat(chat_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, _another_site() as elsewhere:
        browser = _browser(p)
        context = browser.new_context()  # one browser profile: the reader's login cookie goes with every request
        own = context.new_page()
        own.goto(chat_url)
        own.locator(STARTER).wait_for(timeout=120_000)
        # the chat's own page reads its threads and opens its socket: what the other page tries is possible
        from_own = own.evaluate(CROSS_SITE_READS, chat_url)
        assert from_own["threads"].startswith("read 200") and from_own["socket"] == "open", from_own

        other = context.new_page()
        other.goto(elsewhere)
        from_other = other.evaluate(CROSS_SITE_READS, chat_url)
        assert from_other == {"threads": "blocked", "user": "blocked", "login": "blocked", "socket": "refused"}, \
            from_other
        browser.close()


SUTTAS = ["MN 10", "MN 21", "SN 56.11", "SN 35.28", "SN 43.5", "AN 4.274", "DN 22", "MN 21", "SN 35.28", "MN 10"]


async def _chat(browser, url: str, sutta: str, index: int) -> tuple[str, list[str], list[str]]:
    from playwright.async_api import expect

    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    page = await context.new_page()
    await page.goto(url)
    # settled: logged in (header auth may pass through /login), socket connected, starters shown
    await page.locator(STARTER).wait_for(timeout=180_000)
    answers = page.locator(ANSWER).filter(has=page.locator("a.element-link"))
    refs: list[list[str]] = []
    for n, question in enumerate((f"What does {sutta} say?", "What comes right after that?"), start=1):
        await _ask_async(page, question)
        await expect(answers).to_have_count(n, timeout=400_000)
        links = answers.nth(n - 1).locator("a.element-link")
        refs.append([t.strip() for t in await links.all_inner_texts()])
    await page.screenshot(path=str(ARTIFACTS / f"e2e-concurrent-{index}.png"))
    await context.close()
    return sutta, refs[0], refs[1]


def test_ten_simultaneous_chats_keep_their_own_memory(chat_url):
    from playwright.async_api import async_playwright

    ARTIFACTS.mkdir(exist_ok=True)

    async def run():
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                return await asyncio.gather(*(_chat(browser, chat_url, s, i) for i, s in enumerate(SUTTAS)))
            finally:
                await browser.close()

    results = asyncio.run(run())
    assert len(results) == 10
    for sutta, first, second in results:
        # "What does MN 10 say?" asks about the text as a whole: its summary is cited to the text itself
        assert first and all(r.upper() == sutta.upper() or r.upper().startswith(sutta.upper() + ":")
                             for r in first), (sutta, first)
        assert any(r.upper().startswith(sutta.upper() + ":") for r in first), (sutta, first)
        # "what comes right after that?" can only be answered from this chat's own previous turn
        assert second and all(r.upper().startswith(sutta.upper() + ":") for r in second), (sutta, second)
