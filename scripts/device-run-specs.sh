#!/usr/bin/env bash
# Runs a folder of RunSpecs (scripts/device-specs.ts) through the bundled runner, unchanged, one
# process per spec, in file order: the device sweep (a GPU host with torch but without Node).
#
#   bash scripts/device-run-specs.sh SPEC_DIR OUT_DIR [DEADLINE_SECONDS] [FIRST_INDEX]
#
# Each spec's JSON lines go to OUT_DIR/<name>.jsonl and its log to OUT_DIR/<name>.log; a spec is
# not started once DEADLINE_SECONDS have passed (so a bounded lease ends cleanly), and FIRST_INDEX
# (1-based) skips the specs a previous call ran. `npm run cli -- convert-runs OUT_DIR` stores them.
set -uo pipefail
SPECS="$1"; OUT="$2"; DEADLINE="${3:-0}"; FIRST="${4:-1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
start=$(date +%s)
i=0
for spec in "$SPECS"/[0-9]*.json; do
  i=$((i + 1))
  [[ $i -lt $FIRST ]] && continue
  name="$(basename "$spec" .json)"
  if [[ "$DEADLINE" -gt 0 && $(( $(date +%s) - start )) -ge "$DEADLINE" ]]; then
    echo "[device-run-specs] deadline reached before $name (index $i)" >&2
    break
  fi
  t0=$(date +%s)
  # A hung run (a collective, an op build) must not eat the lease: SIGTERM is the runner's cancel.
  timeout "${PER_SPEC_TIMEOUT:-240}" "$PY" -u "$ROOT/resources/engine/bench.py" --spec "$spec" >"$OUT/$name.jsonl" 2>"$OUT/$name.log"
  code=$?
  echo "[device-run-specs] $i $name exit=$code $(( $(date +%s) - t0 ))s $(grep -o '"type": *"result".*' "$OUT/$name.jsonl" | head -c 300)" >&2
done
