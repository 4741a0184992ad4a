#!/usr/bin/env bash
# The resource view (issue 31) on a GPU host without Node (the team's leased H200), with the app's own
# CLI (packed by scripts/device-cli-pack.mjs into device-run/cli): one ZeRO-3 + CPU-offload run and one
# no-offload run (ZeRO-1, all on the GPU) of Llama-3.2-1B at seq 2048, sampled by the app as every run
# is, with `run --watch` printing the live line. The sampler keeps nvidia-smi's raw output
# (OFFLOAD_STUDIO_RESOURCES_RAW_DIR: <run id>.query.txt, <run id>.dmon.txt, each starting with its argv)
# for fixtures; `runs show ID --resources --json` writes the stored samples' attribution beside the
# tuner's terms.
#
#   bash scripts/device-resources.sh DATA_DIR OUT_DIR [STEPS] [WARMUP]
#
# Expects PYTHONPATH with DeepSpeed and TORCH_EXTENSIONS_DIR, as scripts/device-tune.sh does.
# OUT_DIR/<strategy>/: run.json (run --json), watch.log (progress + live lines), raw/ (nvidia-smi as the
# sampler saw it), resources.json and resources.txt (runs show ID --resources [--json]).
set -uo pipefail
DATA="$1"; OUT="$2"; STEPS="${3:-6}"; WARMUP="${4:-2}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="$(command -v python3)"
mkdir -p "$OUT"
say() { echo "[device-resources] $*" >&2; }
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,pcie.link.gen.current,pcie.link.width.current --format=csv >"$OUT/gpus.csv" 2>&1
for STRATEGY in zero3-offload gpu-zero1; do
  W="$OUT/$STRATEGY"
  mkdir -p "$W/raw"
  OFFLOAD_STUDIO_RESOURCES_RAW_DIR="$W/raw" "${CLI[@]}" run --model llama-3.2-1b --strategy "$STRATEGY" --seq 2048 --gpus 1 \
    --steps "$STEPS" --warmup "$WARMUP" --max-seconds 900 --python "$PY" --data-dir "$DATA" --watch --json >"$W/run.json" 2>"$W/watch.log"
  say "$STRATEGY run exit=$? $(( $(date +%s) - t0 ))s"; grep -m 3 '^\[resources\]' "$W/watch.log" >&2; tail -n 2 "$W/watch.log" >&2
  ID="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$W/run.json" 2>/dev/null)"
  if [[ -z "$ID" ]]; then say "$STRATEGY: no run id in run.json"; continue; fi
  "${CLI[@]}" runs show "$ID" --resources --json --data-dir "$DATA" >"$W/resources.json" 2>"$W/resources.err"
  "${CLI[@]}" runs show "$ID" --resources --data-dir "$DATA" >"$W/resources.txt" 2>&1
  say "$STRATEGY resources exit=$?"; head -n 12 "$W/resources.txt" >&2
  ls -l "$W/raw" >&2
done
# The samples themselves, movable to another data folder (runs file: runs/export; resources are in history.db).
cp "$DATA/history.db" "$OUT/history.db" 2>/dev/null && "$PY" - "$OUT/history.db" <<'PYEOF' >&2
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
for run_id, n in db.execute("SELECT run_id, length(body) FROM resource_samples"):
    print(f"resource_samples: {run_id} {n} bytes")
PYEOF
say "done $(( $(date +%s) - t0 ))s"
