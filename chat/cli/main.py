"""`scholar`: the command line. Settings are built here, once, and passed to everything below."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from indexing.settings import ScholarSettings
from indexing.settings_doc import load_settings

log = logging.getLogger("scholar")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scholar", description="A cited assistant for the Pali canon.")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ingest", help="index files (default: the configured corpus), incrementally")
    s.add_argument("paths", nargs="*", type=Path)
    s.add_argument("--no-progress", action="store_true")
    s.add_argument("--json", action="store_true", help="print the run report as JSON")
    s.add_argument("--wait", action="store_true", help="if another ingest is updating the index, wait for it "
                   "instead of stopping")
    s.add_argument("--lexical-only", action="store_true", help="everything but the vectors (docstore, BM25, "
                   "names, cards' text): enough to serve; a later run embeds what is missing")

    s = sub.add_parser("stats", help="what the index holds")
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("ask", help="ask a question; streams a cited answer")
    s.add_argument("question")
    s.add_argument("--json", action="store_true", help="print the structured answer object")
    s.add_argument("--trace", type=Path, help="write the tool trace as JSON to this file")
    s.add_argument("--session", help="continue the conversation with this ID")
    s.add_argument("--mode", choices=["auto", "qa", "notes"], default="auto")

    s = sub.add_parser("eval", help="evaluation commands")
    ev = s.add_subparsers(dest="target", required=True)
    e = ev.add_parser("retrieval")
    e.add_argument("--questions", type=Path, nargs="+", required=True, help="one or more JSONL files, each reported")
    e.add_argument("--mode", default="all", help="bm25|dense|hybrid|hybrid+rerank|all (comma list allowed)")
    e.add_argument("--k", type=int, default=10)
    e.add_argument("--json", type=Path, dest="json_out")
    e = ev.add_parser("claims")
    e.add_argument("--claims", type=Path, required=True)
    e.add_argument("--mode", choices=["local", "judge"], help="default: SCHOLAR_VERIFIER_MODE (judge)")
    e.add_argument("--as-answer", action="store_true",
                   help="judge each claim as the Scholar judges its own sentences (strict, with the dense scorer)")
    e.add_argument("--half", choices=["even", "odd"], help="only the claims whose id ends in an even (odd) number")
    e.add_argument("--json", type=Path, dest="json_out")
    e = ev.add_parser("answers")
    e.add_argument("--questions", type=Path, required=True)
    e.add_argument("--limit", type=int)
    e.add_argument("--ids", help="only these question ids, comma-separated (to rerun the ones that went wrong)")
    e.add_argument("--json", type=Path, dest="json_out")
    e = ev.add_parser("dialogues", help="multi-turn dialogues, each in a fresh session")
    e.add_argument("--dialogues", type=Path, required=True)
    e.add_argument("--limit", type=int)
    e.add_argument("--ids", help="only these dialogue ids, comma-separated")
    e.add_argument("--json", type=Path, dest="json_out")

    e = ev.add_parser("aliases")
    e.add_argument("--aliases", type=Path, required=True, help="CSV with alias,sutta_id columns")
    e.add_argument("--json", type=Path, dest="json_out")

    s = sub.add_parser("chat", help="start the Chainlit chat")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--headless", action="store_true")
    s.add_argument("--ingest", action="store_true", help="bring the index up to date first: the lexical side "
                   "before the chat starts, the vectors in a background process while it serves")

    s = sub.add_parser("serve", help="start the JSON HTTP API")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8001)
    s.add_argument("--ingest", action="store_true", help="bring the index up to date first: the lexical side "
                   "before the API starts, the vectors in a background process while it serves")

    s = sub.add_parser("models", help="the embedded offline LLM")
    s.add_argument("action", choices=["install", "status"])
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    for noisy in ("httpx", "chromadb", "sentence_transformers", "urllib3", "huggingface_hub"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        # Inside the try: a setting that cannot be read is one line naming the variable, exit 2, for every command.
        return _dispatch(args, load_settings())
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from chat.errors import user_message

        message = user_message(exc)
        if message is None:
            raise
        log.error("%s", message)
        return 2


def _dispatch(args, settings: ScholarSettings) -> int:
    if args.command == "ingest":
        from indexing.pipeline import ingest

        report = ingest(settings, args.paths or None, progress=not args.no_progress, wait=args.wait,
                        semantic=not args.lexical_only)
        if args.json:
            sys.stdout.write(json.dumps(report.__dict__, indent=2, default=str) + "\n")
        else:
            sys.stdout.write(report.summary() + "\n")
            for path, reason in report.skipped:
                sys.stdout.write(f"  skipped {path}: {reason}\n")
        return 0
    if args.command == "stats":
        from indexing.stats import collect_stats, format_stats

        stats = collect_stats(settings)
        sys.stdout.write((json.dumps(stats, indent=2) if args.json else format_stats(stats)) + "\n")
        return 0
    if args.command == "ask":
        from chat.cli.ask import run_ask
        from chat.runtime import Runtime

        return run_ask(args, Runtime(settings))
    if args.command == "eval":
        from chat.evals import run_eval

        return run_eval(args, settings)
    if args.command == "chat":
        from chat.ui.launch import run_chat

        return run_chat(args, settings)
    if args.command == "serve":
        from chat.api.routes import run_server

        return run_server(args, settings)
    if args.command == "models":
        from chat.providers.embedded import models_command

        return models_command(args.action, settings)
    raise AssertionError(args.command)
