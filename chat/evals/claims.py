"""`scholar eval claims`: the claim verifier on labelled claims.

Each claim is verified as a one-sentence answer citing its `cited` IDs, with the cited suttas' chunks as the
turn's passages (as if the agent had looked them up). Partial counts as unsupported for the binary metrics.

`--as-answer` judges each claim as the Scholar judges its model's own sentences (strict: support from one short
window of the text, with the embedding model's second opinion), which is what decides what a reader is shown;
without it, as the `verify_claims` tool judges a reader's text. `--half even|odd` keeps the claims whose id ends in
an even (odd) number: build on one half, report both.
"""

from __future__ import annotations

import json
import logging
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from chat.evals.report import save_report
from indexing.settings import ScholarSettings
from tools.passages import Passage
from tools.references import find_citations

log = logging.getLogger(__name__)


def load_claims(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def as_answer(claim: dict) -> str:
    text = claim["claim"].strip()
    present = {c.sutta_id for c in find_citations(text)}
    extra = [c for c in claim.get("cited", []) if c not in present]
    return text + "".join(f" [{c}]" for c in extra)


def turn_passages(docstore, index, cited: list[str]) -> list[Passage]:
    out: list[Passage] = []
    for sutta_id in cited:
        doc = index.resolve(sutta_id)
        if doc is not None:
            out.extend(Passage.from_chunk(c) for c in docstore.chunks_of(doc.doc_id))
    return out


def _binary(label: str) -> bool:
    return label in ("unsupported", "partial")


def _prf(pairs: list[tuple[str, str]]) -> dict:
    tp = sum(1 for gold, pred in pairs if _binary(gold) and _binary(pred))
    fp = sum(1 for gold, pred in pairs if not _binary(gold) and _binary(pred))
    fn = sum(1 for gold, pred in pairs if _binary(gold) and not _binary(pred))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"unsupported_precision": round(p, 3), "unsupported_recall": round(r, 3), "unsupported_f1": round(f, 3)}


def _accuracy(pairs: list[tuple[str, str]]) -> float:
    # "uncited" cannot happen here (every claim cites); counted as "unsupported" if it ever does.
    def norm(v: str) -> str:
        return "unsupported" if v == "uncited" else v

    return round(sum(1 for g, p in pairs if g == norm(p)) / len(pairs), 3) if pairs else 0.0


def _expected_location(claim: dict) -> set[str]:
    """Sutta IDs the note says the statement really comes from (wrong_citation claims)."""
    cited = {c.lower() for c in claim.get("cited", [])}
    found = {m.group(0) for m in re.finditer(r"\b(?:DN|MN|SN|AN|Dhp) \d+(?:\.\d+)?(?:-\d+)?", claim.get("note", ""))}
    found |= {m.group(0) for m in re.finditer(r"\b(?:dn|mn|sn|an|dhp)\d+(?:\.\d+)?(?=:)", claim.get("note", ""))}
    from indexing.vocabulary import uid_to_sutta_id

    out = set()
    for f in found:
        try:
            sid = f if " " in f else uid_to_sutta_id(f)
        except ValueError:
            continue
        if sid.lower() not in cited:
            out.add(sid)
    return out


def _located_right(found_ref: str | None, expected: set[str]) -> bool:
    if not found_ref or not expected:
        return False
    sutta = found_ref.split(":")[0]
    return sutta in expected


def half(claims: list[dict], which: str | None) -> list[dict]:
    """The claims whose id ends in an even (or odd) number; all of them for None."""
    if not which:
        return claims
    want = 0 if which == "even" else 1

    def number(claim: dict) -> int:
        digits = re.findall(r"\d+", str(claim["id"]))
        return int(digits[-1]) if digits else 0

    return [c for c in claims if number(c) % 2 == want]


def evaluate(claims: list[dict], verifier, docstore, mode: str = "local", strict: bool = False) -> dict:
    rows = []
    for claim in claims:
        passages = turn_passages(docstore, verifier.index, claim.get("cited", []))
        started = time.perf_counter()
        report = verifier.verify(as_answer(claim), passages, mode=mode, strict=strict)
        ms = (time.perf_counter() - started) * 1000
        v = report.verdicts[0] if report.verdicts else None
        rows.append({
            "id": claim["id"], "kind": claim.get("kind", ""), "label": claim["label"],
            "verdict": v.verdict if v else "supported", "reason": v.reason if v else "not a claim",
            "evidence": v.evidence_ref if v else None, "found_elsewhere": v.found_elsewhere if v else None,
            "score": round(v.score, 3) if v else 0.0, "ms": round(ms, 1),
            "expected_location": sorted(_expected_location(claim)) if claim.get("kind") == "wrong_citation" else [],
        })
    pairs = [(r["label"], r["verdict"]) for r in rows]
    out = {"n": len(rows), "mode": mode, "strict": strict, "accuracy": _accuracy(pairs), **_prf(pairs),
           "ms_per_claim_p50": round(statistics.median(r["ms"] for r in rows), 1) if rows else 0.0}
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    out["by_kind"] = {}
    for kind, items in sorted(by_kind.items()):
        kp = [(r["label"], r["verdict"]) for r in items]
        out["by_kind"][kind] = {"n": len(items), "accuracy": _accuracy(kp),
                                "flagged": round(sum(_binary(p) for _, p in kp) / len(kp), 3)}
    wrong = [r for r in rows if r["kind"] == "wrong_citation"]
    if wrong:
        out["wrong_citation_located"] = round(
            sum(_located_right(r["found_elsewhere"], set(r["expected_location"])) for r in wrong) / len(wrong), 3)
    out["rows"] = rows
    return out


def format_report(result: dict) -> str:
    lines = [
        f"claims: {result['n']}  mode: {result['mode']}{'  as answers (strict)' if result.get('strict') else ''}",
        f"accuracy {result['accuracy']:.3f}  unsupported P {result['unsupported_precision']:.3f} "
        f"R {result['unsupported_recall']:.3f} F1 {result['unsupported_f1']:.3f}  "
        f"median {result['ms_per_claim_p50']:.0f} ms/claim",
    ]
    if "wrong_citation_located" in result:
        lines.append(f"wrong_citation located: {result['wrong_citation_located']:.3f}")
    lines.append(f"{'kind':<16}{'n':>4}{'acc':>8}{'flagged':>9}")
    for kind, k in result["by_kind"].items():
        lines.append(f"{kind:<16}{k['n']:>4}{k['accuracy']:>8.3f}{k['flagged']:>9.3f}")
    misses = [r for r in result["rows"] if r["label"] != r["verdict"]]
    if misses:
        lines.append("mismatches:")
        for r in misses:
            lines.append(f"  {r['id']} {r['kind']:<15} gold={r['label']:<11} got={r['verdict']:<11} {r['reason'][:90]}")
    return "\n".join(lines)


def run(args, settings: ScholarSettings) -> int:
    from tools.library import Library

    claims = half(load_claims(args.claims), getattr(args, "half", None))
    strict = bool(getattr(args, "as_answer", False))
    # The verifier reads the docstore and BM25 (to locate wrong citations); only as the Scholar judges its own
    # sentences does it take the embedding model's second opinion.
    library = Library.open(settings, dense=strict)
    args.mode = args.mode or settings.verifier_mode
    llm = None
    if args.mode != "local":
        from chat.providers.select import build_llm

        llm = build_llm(settings)
    verifier = library.verifier(dense=strict, llm=llm, mode=args.mode)
    docstore = library.docstore
    result = evaluate(claims, verifier, docstore, args.mode, strict=strict)
    sys.stdout.write(format_report(result) + "\n")
    if args.json_out:
        save_report(args.json_out, result)
    return 0
