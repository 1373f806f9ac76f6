"""The optional LLM judge of the claim verifier: one short prompt per sentence, a one-line JSON verdict back."""

from __future__ import annotations

import json
import logging
import re

from prompts import load_prompt

log = logging.getLogger(__name__)

_LABELS = ("supported", "partial", "unsupported")


def judge_claim(llm, claim: str, cited: list[str], evidence: list) -> tuple[str, str] | None:
    """(label, reason) from the LLM, or None when it fails or answers out of format (the local verdict stands)."""
    shown = "\n".join(f"[{e.ref}] {e.quote}" for e in evidence[:4]) or "(no matching passage was found)"
    prompt = load_prompt("verify_judge", claim=claim, cited=", ".join(cited) or "(none)", evidence=shown)
    try:
        text = str(llm.complete(prompt).text)
    except Exception as exc:  # any provider failure: verification must not break the answer
        log.warning("LLM judge failed: %s", exc)
        return None
    return parse_judgement(text)


def parse_judgement(text: str) -> tuple[str, str] | None:
    m = re.search(r"\{.*?\}", text, re.S)
    if m:
        try:
            data = json.loads(m.group(0))
            label = str(data.get("verdict", "")).strip().lower()
            if label in _LABELS:
                return label, str(data.get("reason", "")).strip()
        except json.JSONDecodeError:
            pass
    # Small models sometimes answer in words; accept a leading label.
    m = re.match(r"\W*(supported|partial|unsupported)\b[\s:,-]*(.*)", text.strip(), re.I | re.S)
    if m:
        return m.group(1).lower(), m.group(2).strip()[:200]
    log.info("LLM judge answered out of format: %r", text[:200])
    return None
