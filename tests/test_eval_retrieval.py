import json
from argparse import Namespace

import pytest

from chat.evals import retrieval
from chat.evals.retrieval import ranked_suttas, score_question
from tools.passages import Passage

from helpers_tools import open_library


def test_scoring_is_by_sutta_with_also_relevant_and_also_in():
    def p(sid, also=()):
        return Passage(chunk_id=sid, doc_id=sid, chunk_index=0, sutta_id=sid, title="", text="", also_in=list(also))

    suttas = ranked_suttas([p("MN 1"), p("MN 1"), p("SN 1.1", ["AN 1.1"]), p("DN 2")])
    assert suttas == ["MN 1", "SN 1.1", "AN 1.1", "DN 2"]
    row = score_question(suttas, ["AN 1.1", "DN 2"], [], k=10)
    assert (row["hit@1"], row["hit@5"], row["mrr"], row["recall@10"]) == (0.0, 1.0, pytest.approx(1 / 3), 1.0)
    row = score_question(suttas, ["DN 9"], ["MN 1"], k=10)
    assert row["hit@1"] == 1.0 and row["recall@10"] == 0.0
    assert score_question(suttas, ["DN 9"], [], k=10)["mrr"] == 0.0


def test_run_writes_the_report(tmp_path_factory, tmp_path, capsys):
    lib = open_library(tmp_path_factory.getbasetemp() / "tools-index")
    questions = tmp_path / "q.jsonl"
    rows = [
        {"id": "a", "question": "What does MN 21 say about bandits?", "gold": ["MN 21"], "kind": "by_id"},
        {"id": "b", "question": "In the Fire Sermon, what is burning?", "gold": ["SN 35.28"], "kind": "by_alias"},
        {"id": "c", "question": "bandits sever limb from limb with a two-handled saw", "gold": ["MN 21"],
         "kind": "by_content"},
        {"id": "d", "question": "observing the body, the path to the unconditioned", "gold": ["AN 4.274"],
         "also_relevant": ["SN 43.5"], "kind": "by_content"},
        {"id": "e", "question": "What is taught in MN 175?", "gold": [], "kind": "unanswerable"},
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "report.json"
    args = Namespace(questions=questions, mode="all", k=10, json_out=out)
    assert retrieval.run(args, lib.settings, library=lib) == 0
    report = json.loads(out.read_text())
    for key in ("hit@1", "hit@5", "hit@10", "recall@10", "mrr", "latency_ms_p50", "latency_ms_p95", "by_kind"):
        assert key in report
    assert set(report["by_kind"]) == {"by_id", "by_alias", "by_content"}  # unanswerable skipped
    assert report["n"] == 4
    assert set(report["modes"]) == {"bm25", "dense", "hybrid", "hybrid+rerank"}
    assert report["by_kind"]["by_id"]["hit@1"] == 1.0 and report["by_kind"]["by_alias"]["hit@1"] == 1.0
    table = capsys.readouterr().out
    assert "hybrid+rerank" in table and "by_content" in table

    single = tmp_path / "single.json"
    args = Namespace(questions=questions, mode="bm25", k=5, json_out=single)
    assert retrieval.run(args, lib.settings, library=lib) == 0
    data = json.loads(single.read_text())
    assert data["mode"] == "bm25" and "modes" not in data and "hit@1" in data["by_kind"]["by_content"]
