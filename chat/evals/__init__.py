"""`scholar eval retrieval|claims|answers|aliases|dialogues`: each evaluation is its own module with
`run(args, settings) -> int`."""

from __future__ import annotations

import importlib

from indexing.settings import ScholarSettings


def run_eval(args, settings: ScholarSettings) -> int:
    module = importlib.import_module(f"chat.evals.{args.target}")
    return module.run(args, settings)
