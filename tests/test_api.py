"""The HTTP API over a tiny real index (three suttas, hashed fake embeddings) with a fake Scholar."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from chat.api.routes import create_app, mount_api
from chat.errors import LLMUnavailableError
from chat.pipeline.answer import Answer, Citation, TokenEvent, TraceStep
from chat.runtime import Runtime
from chat.sessions import memory_key
from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.library import Library

from corpus import write_mini_corpus
from fakes import FakeEmbedding
from scholar_helpers import FakeScholar


@pytest.fixture(scope="module")
def embed() -> FakeEmbedding:
    return FakeEmbedding(model_name="fake-hash-64")


@pytest.fixture(scope="module")
def api_index(tmp_path_factory, embed) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("api")
    tree = write_mini_corpus(root / "corpus")
    settings = ScholarSettings(_env_file=None, index_dir=root / "index", corpus_paths=[tree])
    ingest(settings, [tree], embed_model=embed, progress=False)
    return root / "index", tree


@pytest.fixture()
def settings(api_index, monkeypatch) -> ScholarSettings:
    import os

    for name in list(os.environ):
        if name.startswith("SCHOLAR_"):
            monkeypatch.delenv(name)
    index_dir, tree = api_index
    return ScholarSettings(_env_file=None, index_dir=index_dir, corpus_paths=[tree], api_query_rate=100,
                           api_search_rate=100)


@pytest.fixture()
def library(settings, embed):
    return Library.open(settings, embed_model=embed)


@pytest.fixture(autouse=True)
def _forget_libraries():
    yield
    Library.forget()


SAW = "Even if bandits sever you limb from limb [MN 21:20.1]."


def saw_answer(**fields) -> Answer:
    base = dict(
        answer=SAW,
        citations=[Citation(ref="MN 21:20.1", sutta_id="MN 21", title="The Simile of the Saw", excerpt="bandits")],
        follow_ups=["What is the simile of the saw about?"], confidence=0.8, timings={"total": 0.1},
        trace=[TraceStep(tool="search_passages", input={"query": "simile of the saw"}, output_summary="3 passages")],
        search_types_used=["bm25", "dense"],
    )
    return Answer(**{**base, **fields})


@pytest.fixture()
def scholar() -> FakeScholar:
    return FakeScholar(saw_answer())


@pytest.fixture()
def client(settings, library, scholar):
    return TestClient(create_app(Runtime(settings, library=library, scholar=scholar)))


def _sse(text: str) -> list[tuple[str, dict]]:
    events = []
    for block in text.strip().split("\n\n"):
        if block.startswith(":"):  # keep-alive comment
            continue
        kind = next(line[7:] for line in block.splitlines() if line.startswith("event: "))
        data = "\n".join(line[6:] for line in block.splitlines() if line.startswith("data: "))
        events.append((kind, json.loads(data)))
    return events


# ---- /api/query ---------------------------------------------------------------------------------------------


def test_query_returns_the_structured_answer(client, scholar):
    session = client.post("/api/sessions").json()["session_id"]
    r = client.post("/api/query", json={"query": "  What does the simile of the saw teach? ", "session_id": session,
                                        "mode": "notes"})
    assert r.status_code == 200
    body = r.json()
    for key in ("answer", "citations", "unsupported_claims", "follow_ups", "status", "confidence", "timings", "trace",
                "search_types_used", "timestamp"):
        assert key in body
    assert body["citations"][0]["ref"] == "MN 21:20.1"
    assert body["session_id"] == session  # the client's ID, not the owner-scoped memory key
    assert scholar.calls == [{"question": "What does the simile of the saw teach?",
                              "session_id": memory_key("api", "anonymous", session), "mode": "notes"}]


def test_query_without_mode_lets_the_scholar_choose(client, scholar):
    client.post("/api/query", json={"query": "What is the fire sermon?"})
    assert scholar.calls[0]["mode"] == "auto" and scholar.calls[0]["session_id"] is None


def test_query_streams_tokens_steps_then_final(client):
    with client.stream("POST", "/api/query", json={"query": "simile of the saw"},
                       headers={"Accept": "text/event-stream"}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = _sse(r.read().decode())
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["step", "step"] and set(kinds[2:-2]) == {"token"} and kinds[-2:] == ["answer", "final"]
    assert "".join(d["text"] for k, d in events if k == "token") == SAW
    assert events[0][1]["phase"] == "start" and events[0][1]["step"]["tool"] == "search_passages"
    assert events[-1][1]["status"] == "answered" and events[-1][1]["citations"][0]["sutta_id"] == "MN 21"
    # the checked answer first, readable before its follow-up questions are written; then the same with them
    checked, final = events[-2][1], events[-1][1]
    assert checked["answer"] == final["answer"] and checked["follow_ups"] == [] and final["follow_ups"]


def _no_llm(settings):
    raise LLMUnavailableError("no LLM: start Ollama or run `scholar models install`")


def test_failing_llm_degrades_to_failed_with_passages(settings, library):
    built = []

    def factory(s):
        built.append(1)
        _no_llm(s)

    app = create_app(Runtime(settings, library=library, llm_factory=factory))
    client = TestClient(app)
    assert built == []  # not at startup
    body = client.post("/api/query", json={"query": "bandits sever limb with a two-handled saw"}).json()
    assert body["status"] == "failed"
    assert "start Ollama" in body["error"]
    assert body["citations"] and any(c["sutta_id"] == "MN 21" for c in body["citations"])
    assert body["search_types_used"]
    client.post("/api/query", json={"query": "bandits"})
    assert built == [1]  # a recent failure is remembered, not retried on every request


def test_failing_llm_streams_a_failed_final_event(settings, library):
    client = TestClient(create_app(Runtime(settings, library=library, llm_factory=_no_llm)))
    r = client.post("/api/query", json={"query": "noble truth of suffering"}, headers={"Accept": "text/event-stream"})
    events = _sse(r.text)
    assert events[-1][0] == "final" and events[-1][1]["status"] == "failed"
    assert events[-1][1]["citations"]
    assert [k for k, _ in events].count("final") == 1


def test_llm_is_built_once_on_first_query_not_for_search(settings, library):
    from chat.providers.rule_based import rule_based_reply
    from chat.providers.scripted import ScriptedLLM

    built: list[ScriptedLLM] = []

    def factory(s):
        built.append(ScriptedLLM(rule_based_reply))
        return built[-1]

    runtime = Runtime(settings, library=library, llm_factory=factory)
    client = TestClient(create_app(runtime))
    assert client.post("/api/search", json={"query": "bandits"}).status_code == 200
    assert built == []
    assert client.get("/api/health").json()["llm"]["loaded"] is False
    for _ in range(2):
        body = client.post("/api/query", json={"query": "What does the Buddha say about bandits and a saw?"}).json()
        assert body["status"] == "answered", body
    assert len(built) == 1 and runtime.scholar().llm is built[0]
    assert client.get("/api/health").json()["llm"]["loaded"] is True


@pytest.mark.parametrize(
    "payload, fragment",
    [
        ({"query": ""}, "must not be empty"),
        ({"query": "   \n "}, "must not be empty"),
        ({"query": "x" * 1001}, "limit is 1000"),
        ({}, "query: Field required"),
        ({"query": 42}, "query: Input should be a valid string"),
        ({"query": "ok", "mode": "essay"}, "mode"),
        ({"query": "ok", "session_id": "has spaces/slash"}, "session_id"),
        ({"query": "ok", "top_k": 3}, "top_k"),
    ],
)
def test_query_validation_is_a_clear_422(client, scholar, payload, fragment):
    r = client.post("/api/query", json=payload)
    assert r.status_code == 422, r.text
    assert fragment in r.json()["detail"]
    assert scholar.calls == []


def test_query_limit_follows_settings(settings, library, scholar):
    settings.api_max_query_chars = 10
    client = TestClient(create_app(Runtime(settings, library=library, scholar=scholar)))
    assert client.post("/api/query", json={"query": "x" * 10}).status_code == 200
    assert "limit is 10" in client.post("/api/query", json={"query": "x" * 11}).json()["detail"]


@pytest.mark.parametrize("raw", ['{"query": ', "not json", '["query"]', "null"])
def test_malformed_json_is_4xx_never_500(client, raw):
    r = client.post("/api/query", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 422), r.text
    assert r.json()["detail"]


def test_truncated_json_is_400(client):
    r = client.post("/api/search", content='{"query": "x"', headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in r.json()["detail"]


def test_huge_body_is_refused(client):
    r = client.post("/api/query", content=json.dumps({"query": "x" * 200_000}),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413


# ---- /api/search --------------------------------------------------------------------------------------------


def test_search_ranks_passages_with_stage_scores(client):
    r = client.post("/api/search", json={"query": "simile of the saw bandits limb from limb", "k": 4})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == "hybrid" and body["k"] == 4
    assert set(body["search_types_used"]) == {"bm25", "dense"}
    passages = body["passages"]
    assert 1 <= len(passages) <= 4
    assert [p["rank"] for p in passages] == list(range(1, len(passages) + 1))
    assert passages[0]["sutta_id"] == "MN 21"
    assert passages[0]["ref"].startswith("MN 21:")
    assert "final" in passages[0]["scores"]
    finals = [p["scores"]["final"] for p in passages]
    assert finals == sorted(finals, reverse=True)


def test_search_bm25_mode_uses_only_bm25(client):
    body = client.post("/api/search", json={"query": "noble truth of suffering craving", "mode": "bm25", "k": 3}).json()
    assert body["search_types_used"] == ["bm25"]
    assert body["passages"][0]["sutta_id"] == "SN 56.11"
    assert all("dense" not in p["scores"] for p in body["passages"])


def test_search_dense_mode(client):
    body = client.post("/api/search", json={"query": "noble truth of suffering", "mode": "dense", "k": 3}).json()
    assert body["search_types_used"] == ["dense"]
    assert body["passages"] and all("dense" in p["scores"] for p in body["passages"])


@pytest.mark.parametrize("collection, expected", [("KN", "Dhp"), ("dhp", "Dhp"), ("mn", "MN ")])
def test_search_collection_filter(client, collection, expected):
    query = {"query": "hatred is laid to rest by love, mind", "collection": collection, "k": 5}
    body = client.post("/api/search", json=query).json()
    assert body["passages"]
    assert all(p["sutta_id"].startswith(expected) for p in body["passages"])


def test_search_with_dense_down_degrades_to_bm25(settings):
    library = Library.open(settings, dense=False)
    client = TestClient(create_app(Runtime(settings, library=library)))
    query = {"query": "bandits sever limb with a two-handled saw", "mode": "hybrid"}
    body = client.post("/api/search", json=query).json()
    assert body["search_types_used"] == ["bm25"]
    assert "BM25 only" in body["degraded"]
    assert body["passages"][0]["sutta_id"] == "MN 21"


@pytest.mark.parametrize(
    "payload, fragment",
    [
        ({"query": "saw", "k": 0}, "k: Input should be greater than or equal to 1"),
        ({"query": "saw", "k": 51}, "k: Input should be less than or equal to 50"),
        ({"query": "saw", "k": "many"}, "k: Input should be a valid integer"),
        ({"query": "saw", "k": True}, "k: Input should be a valid integer"),
        ({"query": "saw", "k": 2.5}, "k: Input should be a valid integer"),
        ({"query": "saw", "mode": "semantic"}, "mode"),
        ({"query": "saw", "collection": "Vinaya"}, "unknown collection"),
        ({"query": ""}, "must not be empty"),
        ({"query": "y" * 1001}, "limit is 1000"),
    ],
)
def test_search_validation_is_a_clear_422(client, payload, fragment):
    r = client.post("/api/search", json=payload)
    assert r.status_code == 422, r.text
    assert fragment in r.json()["detail"]


# ---- /api/suttas --------------------------------------------------------------------------------------------


def test_sutta_whole_text_english_and_pali(client):
    r = client.get("/api/suttas/MN%2010")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["sutta_id"] == "MN 10" and body["title"] == "Mindfulness Meditation"
    assert body["segments_shown"] == "all"
    assert len(body["segments"]) == 22  # every segment with text, not the lookup tool's 8-segment opening
    assert "Passage 65 on principles" in body["text_en"] and "dhammesu 6.5" in body["text_pali"]
    assert body["segments"][0]["ref"].startswith("MN 10:")


def test_sutta_segment_range(client):
    body = client.get("/api/suttas/mn10:3.2-3.4").json()
    ids = [s["seg_id"] for s in body["segments"]]
    assert ids == ["mn10:3.2", "mn10:3.3", "mn10:3.4"]
    assert body["truncated"] is False
    assert all(s["pali"] for s in body["segments"])


def test_sutta_in_a_verse_range_file(client):
    body = client.get("/api/suttas/Dhp%201").json()
    assert body["segments"] and all(s["seg_id"].startswith("dhp1:") for s in body["segments"])
    verses = client.get("/api/suttas/Dhp%201-4").json()
    assert {s["seg_id"].partition(":")[0] for s in verses["segments"]} == {"dhp1", "dhp2", "dhp3", "dhp4"}
    assert verses["truncated"] is False


def test_a_long_segment_range_says_it_was_cut(client, monkeypatch):
    import tools.texts.lookup

    monkeypatch.setattr(tools.texts.lookup, "MAX_SEGMENTS", 3)
    body = client.get("/api/suttas/mn10:3.1-6.5").json()
    assert len(body["segments"]) == 3 and body["truncated"] is True


@pytest.mark.parametrize("ref, fragment", [("MN%20175", "10–21"), ("MN%20175", "There is no MN 175"),
                                           ("banana", "is not a reference;"),
                                           ("MN%2021%20extra", "is not a reference;"),
                                           ("MN%2021:abc", "is not a reference;"), ("mn10:99.1-99.4", "no segments")])
def test_unknown_reference_is_404_with_the_valid_range(client, ref, fragment):
    r = client.get(f"/api/suttas/{ref}")
    assert r.status_code == 404, r.text
    assert fragment in r.json()["detail"]


def test_overlong_reference_is_422(client):
    assert client.get("/api/suttas/" + "m" * 200).status_code == 422


# ---- /api/health, docs --------------------------------------------------------------------------------------


def test_health_reports_index_and_providers(client):
    r = client.get("/api/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok"
    assert body["index"]["loaded"] and body["index"]["chunks"] > 0 and body["index"]["documents"] >= 5
    assert body["index"]["dense_vectors"] == body["index"]["chunks"]
    assert body["embedding"]["live"] is True
    assert body["embedding"]["index_model"] == body["embedding"]["model"]  # built under these settings
    assert body["llm"]["provider"] == "auto"


def test_health_without_an_index_is_503(tmp_path):
    client = TestClient(create_app(Runtime(ScholarSettings(index_dir=tmp_path / "none"))))
    r = client.get("/api/health")
    assert r.status_code == 503
    assert r.json()["status"] == "unavailable" and "scholar ingest" in r.json()["index"]["error"]
    r = client.post("/api/search", json={"query": "saw"})
    assert r.status_code == 503 and "scholar ingest" in r.json()["detail"]
    for headers in ({}, {"Accept": "text/event-stream"}):
        r = client.post("/api/query", json={"query": "saw"}, headers=headers)
        assert r.status_code == 503 and "scholar ingest" in r.json()["detail"]
    assert client.get("/api/suttas/MN%2021").status_code == 503


def test_openapi_and_docs(client):
    schema = client.get("/openapi.json").json()
    assert {"/api/query", "/api/search", "/api/suttas/{ref}", "/api/health"} <= set(schema["paths"])
    assert client.get("/docs").status_code == 200


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_need_nothing_from_another_host(client, page):
    html = client.get(page).text
    assets = [a for a in re.findall(r'(?:src|href|spec-url)="([^"]+)"', html) + re.findall(r"url: '([^']+)'", html)
              if not a.startswith("data:")]
    assert len(assets) >= 2 and not [a for a in assets if "//" in a], assets  # an offline machine has no CDN
    for asset in assets:
        assert client.get(asset).status_code == 200, asset


# ---- rate limiting and auth ---------------------------------------------------------------------------------


def test_search_rate_limit_429_with_retry_after(settings, library):
    settings.api_search_rate = 3
    client = TestClient(create_app(Runtime(settings, library=library)))
    codes = [client.post("/api/search", json={"query": "saw"}).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    r = client.post("/api/search", json={"query": "saw"})
    assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 60
    assert "3 searches" in r.json()["detail"]
    assert client.get("/api/suttas/MN%2021").status_code == 200  # other endpoints are not counted


def test_query_rate_limit_is_separate(settings, library, scholar):
    settings.api_query_rate = 2
    settings.api_search_rate = 5
    client = TestClient(create_app(Runtime(settings, library=library, scholar=scholar)))
    assert [client.post("/api/query", json={"query": "saw"}).status_code for _ in range(3)] == [200, 200, 429]
    assert client.post("/api/search", json={"query": "saw"}).status_code == 200
    assert len(scholar.calls) == 2


def test_rate_limit_counts_each_api_key_separately(settings, library):
    settings.api_keys = ["alpha", "beta"]
    settings.api_search_rate = 1
    client = TestClient(create_app(Runtime(settings, library=library)))
    assert client.post("/api/search", json={"query": "saw"}, headers={"X-API-Key": "alpha"}).status_code == 200
    assert client.post("/api/search", json={"query": "saw"}, headers={"X-API-Key": "alpha"}).status_code == 429
    assert client.post("/api/search", json={"query": "saw"}, headers={"X-API-Key": "beta"}).status_code == 200


def test_api_key_auth(settings, library, scholar):
    settings.api_keys = ["s3cret"]
    client = TestClient(create_app(Runtime(settings, library=library, scholar=scholar)))
    for headers in ({}, {"X-API-Key": "wrong"}):
        assert client.post("/api/search", json={"query": "saw"}, headers=headers).status_code == 401
        assert client.post("/api/query", json={"query": "saw"}, headers=headers).status_code == 401
        assert client.get("/api/suttas/MN%2021", headers=headers).status_code == 401
    assert scholar.calls == []
    ok = {"X-API-Key": "s3cret"}
    assert client.post("/api/search", json={"query": "saw"}, headers=ok).status_code == 200
    assert client.post("/api/query", json={"query": "saw"}, headers=ok).status_code == 200
    assert client.get("/api/suttas/MN%2021", headers=ok).status_code == 200
    assert client.get("/api/health").status_code == 200  # liveness stays open


def test_no_keys_configured_means_open(client):
    assert client.post("/api/search", json={"query": "saw"}).status_code == 200


# ---- mounting inside another app (Chainlit) -----------------------------------------------------------------


def test_mount_api_wins_over_a_catch_all_ui_route(settings, library, scholar):
    host = FastAPI()

    @host.get("/{full_path:path}")
    async def ui(full_path: str):
        return {"ui": full_path}

    mount_api(host, Runtime(settings, library=library, scholar=FakeScholar(saw_answer())))
    mount_api(host, Runtime(settings, library=library, scholar=scholar))  # a reload mounts again: replaced, not stacked
    assert sum(getattr(r, "name", None) == "scholar-api" for r in host.router.routes) == 1
    client = TestClient(host)
    assert client.get("/some/page").json() == {"ui": "some/page"}
    assert client.get("/api/health").json()["index"]["loaded"] is True
    assert client.post("/api/query", json={"query": "saw"}).json()["status"] == "answered"
    assert len(scholar.calls) == 1
    assert client.get("/api/suttas/MN%2021").json()["sutta_id"] == "MN 21"
    assert "/query" in client.get("/api/openapi.json").json()["paths"]
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and "/api/openapi.json" in docs.text  # the mount's root path is honoured


class BrokenScholar(FakeScholar):
    async def astream(self, question, *, session_id=None, mode="auto"):
        yield TokenEvent(text="Even if")
        raise LLMUnavailableError("Ollama went away mid-answer")

    async def aask(self, question, *, session_id=None, mode="auto"):
        raise LLMUnavailableError("Ollama went away")


def test_a_scholar_failing_mid_stream_still_ends_with_one_failed_final(settings, library):
    client = TestClient(create_app(Runtime(settings, library=library, scholar=BrokenScholar(saw_answer()))))
    streamed = client.post("/api/query", json={"query": "bandits saw"}, headers={"Accept": "text/event-stream"})
    events = _sse(streamed.text)
    assert [k for k, _ in events] == ["token", "final"]
    assert events[-1][1]["status"] == "failed" and "mid-answer" in events[-1][1]["error"]
    assert events[-1][1]["citations"]
    body = client.post("/api/query", json={"query": "bandits saw"}).json()
    assert body["status"] == "failed" and body["citations"]


def test_real_scholar_with_a_failing_llm_returns_failed_with_passages(settings, library):
    from chat.providers.scripted import ScriptedLLM

    def refuse(messages):
        raise ConnectionError("connection refused")

    def factory(s):
        return ScriptedLLM(refuse)

    client = TestClient(create_app(Runtime(settings, library=library, llm_factory=factory)))
    question = "What happens if bandits sever you limb from limb with a saw?"
    body = client.post("/api/query", json={"query": question}).json()
    assert body["status"] == "failed", body
    assert body["citations"] and any(c["sutta_id"] == "MN 21" for c in body["citations"])
    assert body["error"]
    r = client.post("/api/query", json={"query": "What is the noble truth of suffering?"},
                    headers={"Accept": "text/event-stream"})
    events = _sse(r.text)
    assert events[-1][0] == "final" and events[-1][1]["status"] == "failed"
    assert "step" in [k for k, _ in events]


class SlowScholar(FakeScholar):
    async def astream(self, question, *, session_id=None, mode="auto"):
        import asyncio

        await asyncio.sleep(0.3)  # a model loading or thinking
        async for ev in super().astream(question, session_id=session_id, mode=mode):
            yield ev


def test_a_silent_stream_gets_keepalive_comments(settings, library, monkeypatch):
    from chat.api import sse

    monkeypatch.setattr(sse, "PING_S", 0.05)
    client = TestClient(create_app(Runtime(settings, library=library, scholar=SlowScholar(saw_answer()))))
    text = client.post("/api/query", json={"query": "saw"}, headers={"Accept": "text/event-stream"}).text
    assert text.startswith(": ping")
    assert [k for k, _ in _sse(text)][-1] == "final"


def test_health_probe_says_what_a_query_would_get_without_building_it(settings, library, tmp_path):
    settings.ollama_host = "http://127.0.0.1:9"  # nothing listens on the discard port
    settings.model_dir = tmp_path / "no-models"
    built = []
    client = TestClient(create_app(Runtime(settings, library=library, llm_factory=lambda s: built.append(1))))
    llm = client.get("/api/health?probe=true").json()["llm"]
    assert llm["loaded"] is False and built == []
    assert llm["probe"]["ollama"]["reachable"] is False and llm["probe"]["embedded_installed"] is False
    assert "probe" not in client.get("/api/health").json()["llm"]


def test_default_llm_factory_with_the_scripted_provider_answers_end_to_end(settings, library):
    settings.llm_provider = "scripted"
    client = TestClient(create_app(Runtime(settings, library=library)))
    r = client.post("/api/query", json={"query": "What did the Buddha say about bandits and a two-handled saw?"},
                    headers={"Accept": "text/event-stream"})
    events = _sse(r.text)
    kinds = [k for k, _ in events]
    assert kinds[-1] == "final" and kinds.count("final") == 1
    final = events[-1][1]
    assert final["status"] in ("answered", "abstained"), final
    assert final["trace"] and final["search_types_used"]
    health = client.get("/api/health").json()["llm"]
    assert health["loaded"] is True and health["live"].startswith("scripted")


def test_wrong_api_keys_are_throttled_per_address(settings, library, scholar):
    from chat.api.security import FAILED_KEYS_PER_MINUTE

    settings.api_keys = ["s3cret"]
    client = TestClient(create_app(Runtime(settings, library=library, scholar=scholar)))
    codes = [client.post("/api/search", json={"query": "saw"}, headers={"X-API-Key": f"guess-{i}"}).status_code
             for i in range(FAILED_KEYS_PER_MINUTE + 2)]
    assert codes == [401] * FAILED_KEYS_PER_MINUTE + [429, 429]
    refused = client.post("/api/search", json={"query": "saw"}, headers={"X-API-Key": "s3cret"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1  # a right guess learns nothing


def test_health_without_a_key_shows_only_the_status_and_never_probes(settings, library, scholar, monkeypatch):
    from chat.api import routes

    probes = []
    monkeypatch.setattr(routes, "probe_providers", lambda s: probes.append(1) or {"ollama": {}})
    settings.api_keys = ["s3cret"]
    settings.ollama_host = "http://10.1.2.3:11434"
    client = TestClient(create_app(Runtime(settings, library=library)))
    for headers in ({}, {"X-API-Key": "wrong"}):
        r = client.get("/api/health?probe=true", headers=headers)
        assert r.status_code == 200 and r.json()["status"] in ("ok", "degraded")
        assert str(settings.index_dir) not in r.text and "10.1.2.3" not in r.text
    assert probes == []
    full = client.get("/api/health?probe=true", headers={"X-API-Key": "s3cret"}).json()
    assert full["index"]["dir"] == str(settings.index_dir) and probes == [1]


@pytest.mark.parametrize("payload", [{"query": "saw", "collection": "x" * 60_000},
                                     {"query": "saw", "mode": "y" * 60_000},
                                     {"query": "saw", "k": "9" * 60_000},
                                     {"query": "saw", "z" * 60_000: 1}])  # an unknown field's name
def test_a_refused_value_is_not_echoed_back(client, payload):
    r = client.post("/api/search", json=payload)
    assert r.status_code == 422 and len(r.content) < 2000
