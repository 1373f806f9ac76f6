"""Writing an evaluation's report: one place for the JSON the eval commands and the bench scripts leave behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def save_report(path: Path | str, report: Any) -> None:
    """`report` as indented JSON at `path` (its folder made if missing), non-ASCII kept as written (Pali names)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
