"""`scholar eval answers --questions FILE [--limit N] [--json OUT]`: the whole agent over eval questions.

Metrics (top-level JSON keys): cited_gold (answerable questions whose answer cites a gold or also-relevant sutta),
abstained_correctly (unanswerable questions declined), citation_precision (of the citations of answered,
answerable questions, the share naming a gold or also-relevant text), answer_seconds_p50/p95 (until the checked
answer is delivered), turn_seconds_p50 (with its follow-up questions, written after it), first_token_seconds_p50,
first_evidence_seconds_p50 (until the first quoted passage).

A file whose rows carry key facts (`must`: groups of alternatives; `must_not`) is also scored on what the answer
says: facts (share of `must` groups of which one alternative occurs in the answer, case- and diacritic-insensitive),
facts_own (the same, counted in the answer's own sentences only, not in the passages it quotes), correct (every
fact, no `must_not`), own_words (answered questions with at least one sentence of their own that stood), clean
(answered, with its own words, no sentence withdrawn or flagged for the reader, no empty-reference debris), and
evidence_only (answers where none of the model's sentences stood, so the quoted passages answer).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import unicodedata
from pathlib import Path

from chat.evals.report import save_report
from chat.pipeline.answer import Answer
from chat.pipeline.compose import is_evidence_only
from chat.runtime import Runtime
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)


def load_questions(path: Path, limit: int | None = None, ids: str | None = None) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if ids:
        wanted = {i.strip() for i in ids.split(",") if i.strip()}
        rows = [r for r in rows if r.get("id") in wanted]
    return rows[:limit] if limit else rows


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    i = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return round(values[i], 2)


def _norm(sutta_id: str | None) -> str:
    return (sutta_id or "").replace(" ", "").lower()


def score_answer(row: dict, answer: Answer) -> dict:
    gold = {_norm(s) for s in row.get("gold") or []} | {_norm(s) for s in row.get("also_relevant") or []}
    cited = [_norm(c.sutta_id) for c in answer.citations]
    return {
        "id": row.get("id"),
        "kind": row.get("kind"),
        "answerable": bool(row.get("gold")),
        "status": answer.status,
        "cited_gold": bool(gold & set(cited)),
        "citations": len(answer.citations),
        # citations of an answered question that name none of its gold texts: the precision's misses
        "off_gold_citations": sum(c not in gold for c in cited) if gold and answer.status == "answered" else 0,
        "seconds": answer.timings.get("answer", answer.timings.get("total")),
        "turn_seconds": answer.timings.get("total"),
        "timings": dict(answer.timings),
        "model_calls": [c.model_dump() for c in answer.model_calls],  # what each call cost: tokens and seconds
        "first_token": answer.timings.get("first_token"),
        "first_evidence": answer.timings.get("first_evidence"),
        "cited": [c.ref for c in answer.citations],
        "gold": row.get("gold"),
        # enough to see why a sentence went without rerunning the question
        "answer": answer.answer,
        "unsupported": [
            {"sentence": v.sentence, "verdict": v.verdict, "evidence_ref": v.evidence_ref, "score": v.score,
             "reason": v.reason, "revised_to": v.revised_to}
            for v in answer.unsupported_claims
        ],
        "follow_ups": list(answer.follow_ups),
    }


_TYPOGRAPHIC = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def _fold(text: str) -> str:
    # a curly apostrophe is the same letter to a reader: "doesn’t apply" in Sujato's text holds "doesn't apply"
    return unicodedata.normalize("NFKD", text.translate(_TYPOGRAPHIC)).encode("ascii", "ignore").decode().lower()


_DEBRIS = re.compile(r"\[\s*\]|\(\s*\)|What the closest passage says")
_SOURCES_LINE = re.compile(r"^\s*\**(?:Sources|Passages found)\**\s*:", re.IGNORECASE)


def own_text(answer: Answer) -> str:
    """The answer's own sentences, without the passages it quotes (/work/shared/README.md, "Facts in the answer's
    own words"): from its typed sentences where it has them; else its text less block quotes, the warnings box and
    the sources line. A quotation inside an own sentence stays: the sentence states the fact."""
    if answer.sentences:
        return " ".join(s.text for s in answer.sentences if s.origin == "model")
    if is_evidence_only(answer.answer):  # the quoted passages and the line introducing them
        return ""
    lines = [line for line in answer.answer.splitlines()
             if not line.lstrip().startswith(">") and not _SOURCES_LINE.match(line)]
    return "\n".join(lines).strip()


def score_content(row: dict, answer: Answer) -> dict:
    """What the answer says against the row's key facts: in all its text and in its own sentences."""
    answered = answer.status == "answered"
    text = _fold(answer.answer)
    own = _fold(own_text(answer)) if answered else ""
    must = row.get("must") or []
    got = [any(_fold(alt) in text for alt in group) for group in must]
    got_own = [any(_fold(alt) in own for alt in group) for group in must]
    wrong = [alt for group in row.get("must_not") or [] for alt in group if _fold(alt) in text]
    return {
        "facts": round(sum(got) / len(must), 3) if must else 1.0,
        "facts_own": round(sum(got_own) / len(must), 3) if must else float(bool(own)),
        "own_words": answered and bool(own.strip()),
        "correct": all(got) and not wrong and answered,
        "clean": answered and bool(own.strip()) and not answer.unsupported_claims
        and not _DEBRIS.search(answer.answer),
        "evidence_only": answered and is_evidence_only(answer.answer),
        "missing_facts": [group for group, ok in zip(must, got) if not ok],
        "missing_own": [group for group, ok in zip(must, got_own) if not ok],
        "said_wrong": wrong,
    }


def summarize(results: list[dict]) -> dict:
    answerable = [r for r in results if r["answerable"]]
    unanswerable = [r for r in results if not r["answerable"]]
    judged = [r for r in answerable if r["status"] == "answered"]
    n_cit = sum(r["citations"] for r in judged)
    evidence = [r["first_evidence"] for r in results if r.get("first_evidence") is not None]
    seconds = [r["seconds"] for r in results if r["seconds"] is not None]
    first = [r["first_token"] for r in results if r["first_token"] is not None]
    turns = [r["turn_seconds"] for r in results if r.get("turn_seconds") is not None]
    content = [r for r in results if "facts" in r]
    scored = {}
    if content:
        def share(key: str) -> float:
            return round(sum(float(r[key]) for r in content) / len(content), 3)
        answered = [r for r in content if r["status"] == "answered"]
        scored = {"facts": share("facts"), "facts_own": share("facts_own"), "correct": share("correct"),
                  "own_words": round(sum(r["own_words"] for r in answered) / len(answered), 3) if answered else None,
                  "clean": share("clean"), "evidence_only": share("evidence_only")}
    return {
        "questions": len(results),
        **scored,
        "cited_gold": round(sum(r["cited_gold"] for r in answerable) / len(answerable), 3) if answerable else None,
        "abstained_correctly": round(sum(r["status"] == "abstained" for r in unanswerable) / len(unanswerable), 3)
        if unanswerable else None,
        "citation_precision": round(1 - sum(r["off_gold_citations"] for r in judged) / n_cit, 3) if n_cit else None,
        "answer_seconds_p50": _pct(seconds, 0.5),
        "answer_seconds_p95": _pct(seconds, 0.95),
        "turn_seconds_p50": _pct(turns, 0.5),
        "first_token_seconds_p50": _pct(first, 0.5),
        "first_evidence_seconds_p50": _pct(evidence, 0.5),
        "failed": sum(r["status"] == "failed" for r in results),
        "false_abstentions": sum(r["status"] == "abstained" for r in answerable),
    }


def run(args, settings: ScholarSettings, runtime: Runtime | None = None) -> int:
    rows = load_questions(args.questions, args.limit, args.ids)
    scholar = (runtime or Runtime(settings)).scholar()
    results = asyncio.run(_run_all(scholar, rows))
    write_report({**summarize(results), "results": results}, args.json_out)
    return 0


def write_report(report: dict, json_out: Path | None) -> None:
    """The figures on stdout; the whole report, per-question rows included, as JSON to `json_out`."""
    sys.stdout.write(json.dumps({k: v for k, v in report.items() if k != "results"}, indent=2) + "\n")
    if json_out:
        save_report(json_out, report)


async def _run_all(scholar, rows: list[dict]) -> list[dict]:
    results = []
    for row in rows:
        answer = await scholar.aask(row["question"])
        result = score_answer(row, answer)
        if "must" in row:
            result.update(score_content(row, answer))
        log.info("%s %s %s cited=%s gold=%s %.1fs", result["id"], result["kind"], result["status"], result["cited"],
                 result["gold"], result["seconds"] or 0)
        results.append(result)
    return results
