"""`scholar eval dialogues --dialogues FILE [--ids A,B] [--json OUT]`: multi-turn dialogues, each in a fresh session.

A turn passes when it abstains iff the file says it should; otherwise it is answered, cites one of `cite_any`, none of
`not_cite`, and its text holds one of `words_any` (case- and diacritic-insensitive). Follow-up turns are every turn
after the first. Top-level JSON keys: turns, turn_pass, first_turn_pass, follow_up_pass, dialogues_all_pass,
seconds_median (until the checked answer; the median of first and follow-up turns apart), turn_seconds_median (with
the follow-up questions written after the answer); `results` holds one row per turn with the answer,
its citations and how the question was resolved.
"""

from __future__ import annotations

import asyncio
import json
import logging
import statistics
import tempfile
import uuid
from pathlib import Path

from chat.evals.answers import load_questions, write_report
from chat.pipeline.answer import Answer
from chat.runtime import Runtime
from indexing.settings import ScholarSettings
from tools.language.words import fold

log = logging.getLogger(__name__)


def _norm(sutta_id: str | None) -> str:
    return (sutta_id or "").replace(" ", "").lower()


def score_turn(expected: dict, answer: Answer) -> tuple[bool, list[str]]:
    """Whether the turn passes the file's rule, and what failed."""
    if expected.get("abstain"):
        return answer.status == "abstained", [] if answer.status == "abstained" else [f"status {answer.status}"]
    problems: list[str] = []
    if answer.status != "answered":
        problems.append(f"status {answer.status}")
    cited = {_norm(c.sutta_id) for c in answer.citations}
    if not cited & {_norm(s) for s in expected.get("cite_any") or []}:
        problems.append("cites none of " + ", ".join(expected.get("cite_any") or []))
    wrong = cited & {_norm(s) for s in expected.get("not_cite") or []}
    if wrong:
        problems.append("cites " + ", ".join(sorted(wrong)))
    text = fold(answer.answer)
    words = expected.get("words_any") or []
    if words and not any(fold(w) in text for w in words):
        problems.append("holds none of " + ", ".join(words))
    return not problems, problems


def _rate(rows: list[dict]) -> float | None:
    return round(sum(r["passed"] for r in rows) / len(rows), 3) if rows else None


def _median(rows: list[dict], key: str = "seconds") -> float | None:
    seconds = [r[key] for r in rows if r.get(key) is not None]
    return round(statistics.median(seconds), 2) if seconds else None


def summarize(results: list[dict]) -> dict:
    first = [r for r in results if r["turn"] == 0]
    follow = [r for r in results if r["turn"] > 0]
    dialogues: dict[str, bool] = {}
    for r in results:
        dialogues[r["id"]] = dialogues.get(r["id"], True) and r["passed"]
    return {
        "dialogues": len(dialogues),
        "turns": len(results),
        "turn_pass": _rate(results),
        "first_turn_pass": _rate(first),
        "follow_up_pass": _rate(follow),
        "dialogues_all_pass": round(sum(dialogues.values()) / len(dialogues), 3) if dialogues else None,
        "seconds_median": _median(results),
        "first_turn_seconds_median": _median(first),
        "follow_up_seconds_median": _median(follow),
        "turn_seconds_median": _median(results, "turn_seconds"),
        "failed": sum(r["status"] == "failed" for r in results),
    }


def run(args, settings: ScholarSettings, runtime: Runtime | None = None) -> int:
    rows = load_questions(args.dialogues, getattr(args, "limit", None), getattr(args, "ids", None))
    with tempfile.TemporaryDirectory(prefix="scholar-dialogues-") as tmp:
        if runtime is None:  # the eval's sessions stay out of the reader's own conversation memory
            settings = settings.model_copy(update={"memory_db": Path(tmp) / "memory.sqlite"})
            runtime = Runtime(settings)
        results = asyncio.run(_run_all(runtime.scholar(), rows, args.json_out))
    write_report({**summarize(results), "results": results}, args.json_out)
    return 0


async def _run_all(scholar, dialogues: list[dict], json_out: Path | None = None) -> list[dict]:
    results: list[dict] = []
    for dialogue in dialogues:
        session = f"eval-{dialogue.get('id')}-{uuid.uuid4().hex[:8]}"  # a fresh conversation per dialogue
        for i, expected in enumerate(dialogue["turns"]):
            answer = await scholar.aask(expected["q"], session_id=session)
            passed, problems = score_turn(expected, answer)
            row = {
                "id": dialogue.get("id"),
                "turn": i,
                "question": expected["q"],
                "passed": passed,
                "problems": problems,
                "status": answer.status,
                "expected": {k: v for k, v in expected.items() if k != "q"},
                "cited": [c.ref for c in answer.citations],
                "cited_suttas": list(dict.fromkeys(c.sutta_id for c in answer.citations if c.sutta_id)),
                "seconds": answer.timings.get("answer", answer.timings.get("total")),
                "turn_seconds": answer.timings.get("total"),
                "timings": dict(answer.timings),  # where a slow turn spent its seconds (plan, agent, finish ...)
                "resolution": answer.resolution.model_dump() if answer.resolution else None,
                "steps": [f"{t.tool}({json.dumps(t.input, ensure_ascii=False)})" for t in answer.trace],
                "answer": answer.answer,
                "error": answer.error,
            }
            log.info("%s/%d %s %s cited=%s %.1fs %s", row["id"], i, "pass" if passed else "FAIL", answer.status,
                     row["cited_suttas"], row["seconds"] or 0, "; ".join(problems))
            results.append(row)
            if json_out:  # a run of many minutes keeps what it has measured if it is stopped
                json_out.write_text(json.dumps({**summarize(results), "partial": True, "results": results},
                                               indent=2, ensure_ascii=False), encoding="utf-8")
    return results
