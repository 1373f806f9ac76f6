"""`scholar eval claims` metrics on the tiny hand-made docstore."""

from __future__ import annotations

from chat.evals.claims import as_answer, evaluate
from tools.verification.evidence import EvidenceIndex
from tools.verification.verifier import ClaimVerifier


def test_as_answer_appends_missing_citations():
    assert as_answer({"claim": "X is so.", "cited": ["MN 1"]}) == "X is so. [MN 1]"
    assert as_answer({"claim": "X is so [MN 1].", "cited": ["MN 1"]}) == "X is so [MN 1]."


def test_evaluate_metrics(stores):
    store, bm25 = stores
    claims = [
        {"id": "a", "kind": "quote", "label": "supported", "cited": ["MN 201"],
         "claim": "Purity and impurity are personal matters; no one can purify another."},
        {"id": "b", "kind": "altered_number", "label": "unsupported", "cited": ["MN 201"],
         "claim": "A mendicant committed to the higher mind should focus on seven subjects from time to time."},
        {"id": "c", "kind": "wrong_citation", "label": "unsupported", "cited": ["MN 201"], "note": "It is MN 202.",
         "claim": "Because he ate so little, the skin of his belly stuck to his backbone."},
    ]
    result = evaluate(claims, ClaimVerifier(EvidenceIndex(store, bm25)), store)
    assert [r["verdict"] for r in result["rows"]] == ["supported", "unsupported", "unsupported"]
    assert result["accuracy"] == 1.0 and result["unsupported_f1"] == 1.0
    assert result["wrong_citation_located"] == 1.0
    assert set(result["by_kind"]) == {"quote", "altered_number", "wrong_citation"}
    assert result["ms_per_claim_p50"] > 0


def test_claims_split_in_halves_by_the_parity_of_their_id():
    from chat.evals.claims import half

    claims = [{"id": "c001"}, {"id": "c002"}, {"id": "c010"}, {"id": "c013"}]
    assert [c["id"] for c in half(claims, "even")] == ["c002", "c010"]
    assert [c["id"] for c in half(claims, "odd")] == ["c001", "c013"]
    assert half(claims, None) == claims
