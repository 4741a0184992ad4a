#!/usr/bin/env bash
# One H200 lease for issue 25 (2026-12-06), all through the app's packed CLI (scripts/device-cli-pack.mjs):
#   1. `tune` on Llama-3.1-8B seq 2048 with every run of that workload held out (DATA_TUNE: import-runs of
#      `scripts/holdout-runs.ts llama-3.1-8b 2048` + `measure --import` of the kind's reference), the code
#      that reads untried candidates on the best trial's scale (tune.ts machineScale) — its trials exported.
#   2. The SuperOffload guide config (`run --ds-config`) on Llama-3.2-3B seq 4096, as given (DeepSpeed's
#      default gradient_clipping 1.0: the CPU step runs serially in step()) and with gradient_clipping 0.0
#      (the step overlaps backward), same instance: does the overlap the model credits exist? DATA_GUIDE
#      holds the history with that workload held out, so the stored predictions are test predictions.
#
#   bash scripts/device-heldout-lease.sh WORK_DIR DATA_TUNE DATA_GUIDE CONFIG_DIR [DEADLINE_SECONDS=1000]
#   (touches WORK_DIR/DONE; each phase starts only while the deadline allows)
# Expects PYTHONPATH with DeepSpeed and TORCH_EXTENSIONS_DIR, as scripts/device-tune.sh does.
set -uo pipefail
W="$1"; DATA_TUNE="$2"; DATA_GUIDE="$3"; CONFIGS="$4"; DEADLINE="${5:-1000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="$(command -v python3)"
start=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - start) )); }
say() { echo "[device-heldout-lease] +$(( $(date +%s) - start ))s $*" >&2; }
mkdir -p "$W"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv >"$W/gpu.csv" 2>&1
"$PY" -c 'import torch, deepspeed, transformers; print("torch", torch.__version__, "deepspeed", deepspeed.__version__, "transformers", transformers.__version__)' >"$W/versions.txt" 2>&1
say "$(tail -1 "$W/gpu.csv") | $(cat "$W/versions.txt")"
"${CLI[@]}" detect --json >"$W/detect.json" 2>"$W/detect.log"; say "detect exit=$?"

# the run ids a CLI answer names (tune's trials, run's results), exported from the data folder as a runs file
export_runs() { # data_dir answer.json out.runs.json
  local ids
  ids="$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d.get("trials", []) if isinstance(d, dict) else d
print(" ".join(r.get("runId") or r.get("id") for r in rows if r.get("runId") or r.get("id")))' "$2" 2>/dev/null)"
  [[ -n "$ids" ]] && "${CLI[@]}" export-runs --data-dir "$1" --out "$3" --overwrite $ids >>"$W/export.log" 2>&1
  say "exported ${ids:-nothing} → $(basename "$3")"
}

if (( $(left) > 300 )); then
  say "phase tune8b2k ($(left)s left)"
  "${CLI[@]}" tune --data-dir "$DATA_TUNE" --python "$PY" --json --model llama-3.1-8b --seq 2048 --gpus 1 --micro-batch 1 \
    --max-trials 3 --steps 3 --warmup 1 --no-baseline --budget-minutes 7 >"$W/tune8b2k.json" 2>"$W/tune8b2k.log"
  say "tune exit=$?"; tail -n 4 "$W/tune8b2k.log" >&2
  export_runs "$DATA_TUNE" "$W/tune8b2k.json" "$W/tune8b2k.runs.json"
  "${CLI[@]}" plan --data-dir "$DATA_TUNE" --model llama-3.1-8b --seq 2048 --gpus 1 --micro-batch 1 >"$W/tune8b2k-plan-after.txt" 2>&1
else say "skipped tune8b2k: $(left)s left"; fi

for c in guide-noclip guide; do
  if (( $(left) < 150 )); then say "skipped $c: $(left)s left"; continue; fi
  say "phase $c ($(left)s left)"
  "${CLI[@]}" run --ds-config "$CONFIGS/$c.json" --model llama-3.2-3b --seq 4096 --steps 6 --warmup 2 --python "$PY" \
    --data-dir "$DATA_GUIDE" --json >"$W/$c.run.json" 2>"$W/$c.log"
  say "$c exit=$?"; tail -n 2 "$W/$c.log" >&2
  export_runs "$DATA_GUIDE" "$W/$c.run.json" "$W/$c.runs.json"
done
say "done"
touch "$W/DONE"
