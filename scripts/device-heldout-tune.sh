#!/usr/bin/env bash
# `tune` on a GPU host with one workload held out, all through the app's packed CLI (scripts/device-cli-pack.mjs),
# and what a sample folder keeps of it: the GPU and library versions, `detect --json`, the `tune --json` answer and
# its log, its trial runs exported as a runs file, and the plan the data folder gives after the trials.
# DATA holds the history without the tuned workload (`npx tsx scripts/holdout-runs.ts MODEL SEQ F.runs.json`,
# `import-runs F.runs.json`, `measure --import` of the kind's reference), made here beforehand.
#
#   bash scripts/device-heldout-tune.sh DATA OUT NAME -- <tune flags…>     (the plan-after gets the same flags
#   less tune's own: --max-trials --steps --warmup --no-baseline --budget-minutes)
# Expects PYTHONPATH with DeepSpeed and TORCH_EXTENSIONS_DIR, as scripts/device-tune.sh does.
set -uo pipefail
DATA="$1"; OUT="$2"; NAME="$3"; shift 4
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="$(command -v python3)"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv >"$OUT/gpu.csv" 2>&1
"$PY" -c 'import torch, deepspeed, transformers; print("torch", torch.__version__, "deepspeed", deepspeed.__version__, "transformers", transformers.__version__)' >"$OUT/versions.txt" 2>&1
"${CLI[@]}" detect --json >"$OUT/detect.json" 2>"$OUT/detect.log"
echo "[device-heldout-tune] $(tail -1 "$OUT/gpu.csv") | $(cat "$OUT/versions.txt")" >&2

bash "$ROOT/scripts/device-tune.sh" "$DATA" "$OUT" "$NAME" -- "$@"

# the trial runs, by the ids tune's answer names
ids="$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(t["runId"] for t in d.get("trials", []) if t.get("runId")))' "$OUT/$NAME.json" 2>/dev/null)"
if [[ -n "$ids" ]]; then
  "${CLI[@]}" export-runs --data-dir "$DATA" --out "$OUT/$NAME.runs.json" --overwrite $ids >"$OUT/export.log" 2>&1
  echo "[device-heldout-tune] exported $ids (exit $?)" >&2
fi

plan_flags=(); skip=0
for a in "$@"; do
  if ((skip)); then skip=0; continue; fi
  case "$a" in
    --max-trials|--steps|--warmup|--budget-minutes) skip=1 ;;
    --no-baseline) ;;
    *) plan_flags+=("$a") ;;
  esac
done
"${CLI[@]}" plan --data-dir "$DATA" "${plan_flags[@]}" >"$OUT/$NAME-plan-after.txt" 2>&1
touch "$OUT/DONE"
