#!/usr/bin/env bash
# A newcomer's first `make run`, timed: a fresh clone of this repository into DIR (default /tmp/first-run), its own
# venv, an empty uv cache (llama-cpp-python is built from its sdist) and its own index. Prints the seconds from
# `make run` to "is ready: http…" and to a complete semantic index (var/index/semantic-progress.json), then stops
# the chat. Run it on an otherwise idle machine; needs ../shared beside DIR.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/first-run}
rm -rf "$dir" "$dir-uv"
git clone -q "$repo" "$dir"
cd "$dir"
export UV_CACHE_DIR="$dir-uv"
start=$(date +%s)
make run > first-run.log 2>&1 &
pid=$!
until grep -q "is ready: http" first-run.log; do
  sleep 2
  kill -0 "$pid" 2>/dev/null || { echo "make run stopped; see $dir/first-run.log" >&2; exit 1; }
done
echo "served after $(( $(date +%s) - start )) s"
until python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("state") != "complete")' \
    var/index/semantic-progress.json 2>/dev/null; do
  sleep 5
done
echo "semantic index complete after $(( $(date +%s) - start )) s"
pkill -TERM -f "$dir/.venv/bin/python .venv/bin/scholar chat" || pkill -TERM -P "$pid" || true
