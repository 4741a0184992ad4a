#!/usr/bin/env bash
# Issue 46's proof on a GPU host: a model the tuner has never seen (a config.json of
# tests/fixtures/model-configs, no run of it anywhere in the samples), all through the app's packed CLI
# (scripts/device-cli-pack.mjs): the samples loaded and this host measured once per data folder, then
# `plan` (which runs the workload's kernel probe on this GPU), `tune` (<= 3 trials), the trial runs
# exported as a runs file, and the plan again. The plan before the trials is the test prediction: the
# model's runs did not exist when it was made.
#
#   bash scripts/device-unseen-lease.sh WORK_DIR DATA_DIR MODEL_CONFIG SEQ [DEADLINE_SECONDS=540]
#   (writes WORK_DIR/<name>-*; touches WORK_DIR/<name>.DONE)
# Expects PYTHONPATH with DeepSpeed, as scripts/device-tune.sh does.
set -uo pipefail
W="$1"; D="$2"; CONFIG="$3"; SEQ="$4"; DEADLINE="${5:-540}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="$(command -v python3)"
NAME="$(basename "$CONFIG" .json)-s$SEQ"
start=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - start) )); }
say() { echo "[device-unseen] +$(( $(date +%s) - start ))s $*" >&2; }
mkdir -p "$W" "$D"
if [[ ! -f "$W/detect.json" ]]; then
  nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv >"$W/gpu.csv" 2>&1
  "$PY" -c 'import torch, deepspeed, transformers; print("torch", torch.__version__, "deepspeed", deepspeed.__version__, "transformers", transformers.__version__)' >"$W/versions.txt" 2>&1
  "${CLI[@]}" detect --json >"$W/detect.json" 2>"$W/detect.log"; say "detect exit=$? | $(tail -1 "$W/gpu.csv") | $(cat "$W/versions.txt")"
fi
if [[ ! -f "$D/.measured" ]]; then
  "${CLI[@]}" load-samples --data-dir "$D" >"$W/load-samples.log" 2>&1; say "load-samples exit=$?"
  "${CLI[@]}" measure --budget-seconds 25 --data-dir "$D" --json >"$W/measure.json" 2>"$W/measure.log"; say "measure exit=$?"
  touch "$D/.measured"
fi
FLAGS=(--model "$CONFIG" --seq "$SEQ" --gpus 1)
t0=$(date +%s)
"${CLI[@]}" plan "${FLAGS[@]}" --data-dir "$D" --json >"$W/$NAME-plan-before.json" 2>"$W/$NAME-plan-before.log"
say "plan exit=$? ($(( $(date +%s) - t0 ))s, the kernel probe included)"
"${CLI[@]}" plan "${FLAGS[@]}" --data-dir "$D" >"$W/$NAME-plan-before.txt" 2>&1
budget=$(( ($(left) - 60) / 60 ))
if (( budget >= 2 )); then
  "${CLI[@]}" tune "${FLAGS[@]}" --max-trials 3 --steps 3 --warmup 1 --no-baseline --budget-minutes "$budget" --python "$PY" \
    --data-dir "$D" --json >"$W/$NAME-tune.json" 2>"$W/$NAME-tune.log"
  say "tune exit=$? (budget ${budget} min)"; tail -n 6 "$W/$NAME-tune.log" >&2
  ids="$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(t["runId"] for t in d.get("trials", []) if t.get("runId")))' "$W/$NAME-tune.json" 2>/dev/null)"
  [[ -n "$ids" ]] && "${CLI[@]}" export-runs --data-dir "$D" --out "$W/$NAME.runs.json" --overwrite $ids >"$W/$NAME-export.log" 2>&1
  say "exported ${ids:-nothing}"
else say "no time left for tune ($(left)s)"; fi
"${CLI[@]}" plan "${FLAGS[@]}" --data-dir "$D" >"$W/$NAME-plan-after.txt" 2>&1
say "done"
touch "$W/$NAME.DONE"
