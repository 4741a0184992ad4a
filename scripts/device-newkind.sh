#!/usr/bin/env bash
# Issue 25 on a machine kind the app has never measured (a leased H100 when no H200 came): what a
# new user gets — the samples loaded (another kind's runs: they calibrate nothing here), the host
# measured, the plan (uncalibrated), `tune` (its trials are the first runs of this kind), the plan
# again, then the boundary found by real runs: each no-offload strategy pushed through micro batches
# until the first OOM, every probe a spec the app wrote (`plan --all-strategies --write-specs`) run
# unchanged by the app's CLI (`run --specs`). All through the packed CLI (scripts/device-cli-pack.mjs).
#
#   bash scripts/device-newkind.sh WORK_DIR MODEL SEQ "MICROS" [DEADLINE_SECONDS=1000]   (touches WORK_DIR/DONE)
#   A second lease goes on from the first's history: SEED_DATA=DIR (the first call's data folder, carried)
#   is copied in and SKIP_TUNE=1 leaves out load-samples, measure and tune; PROBES="gpu-zero1:9,10
#   gpu-zero3:6,7" names the strategies and micro batches to probe (default: gpu-zero1 and gpu-zero2 × MICROS).
# Expects PYTHONPATH with DeepSpeed, NODE pointing to the unpacked Node of device-run/cli.
set -uo pipefail
W="$1"; MODEL="$2"; SEQ="$3"; MICROS="$4"; DEADLINE="${5:-1000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="$(command -v python3)"
D="$W/data"
start=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - start) )); }
say() { echo "[device-newkind] +$(( $(date +%s) - start ))s $*" >&2; }
mkdir -p "$W" "$D"
[[ -n "${SEED_DATA:-}" ]] && cp -r "$SEED_DATA"/. "$D"/
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv >"$W/gpu.csv" 2>&1
"$PY" -c 'import torch, deepspeed, transformers; print("torch", torch.__version__, "deepspeed", deepspeed.__version__, "transformers", transformers.__version__)' >"$W/versions.txt" 2>&1
say "$(tail -1 "$W/gpu.csv") | $(cat "$W/versions.txt")"
"${CLI[@]}" detect --json >"$W/detect.json" 2>"$W/detect.log"; say "detect exit=$?"
W_FLAGS=(--model "$MODEL" --seq "$SEQ" --gpus 1)
if [[ -z "${SKIP_TUNE:-}" ]]; then
  "${CLI[@]}" load-samples --data-dir "$D" >"$W/load-samples.log" 2>&1; say "load-samples exit=$?"
  "${CLI[@]}" measure --budget-seconds 30 --data-dir "$D" --json >"$W/measure.json" 2>"$W/measure.log"; say "measure exit=$?"
  "${CLI[@]}" plan "${W_FLAGS[@]}" --data-dir "$D" --json >"$W/plan-before.json" 2>"$W/plan-before.log"; say "plan exit=$?"
  "${CLI[@]}" plan "${W_FLAGS[@]}" --data-dir "$D" >"$W/plan-before.txt" 2>&1
  "${CLI[@]}" tune "${W_FLAGS[@]}" --max-trials 3 --steps 3 --warmup 1 --no-baseline --budget-minutes 6 --python "$PY" --data-dir "$D" --json >"$W/tune.json" 2>"$W/tune.log"
  say "tune exit=$?"; tail -n 6 "$W/tune.log" >&2
  "${CLI[@]}" plan "${W_FLAGS[@]}" --data-dir "$D" >"$W/plan-after-tune.txt" 2>&1
fi
for PROBE in ${PROBES:-gpu-zero1:${MICROS// /,} gpu-zero2:${MICROS// /,}}; do
  STRATEGY="${PROBE%%:*}"
  for M in $(tr ',' ' ' <<<"${PROBE#*:}"); do
    if (( $(left) < 90 )); then say "deadline: $STRATEGY micro $M and beyond not probed"; break 2; fi
    S="$W/specs/mb$M"
    [[ -d "$S" ]] || "${CLI[@]}" plan "${W_FLAGS[@]}" --micro-batch "$M" --all-strategies --steps 3 --warmup 1 --write-specs "$S" --data-dir "$D" >"$W/specs-mb$M.log" 2>&1
    P="$W/probe/$STRATEGY-mb$M"; mkdir -p "$P"; cp "$S/$STRATEGY.json" "$P/"
    "${CLI[@]}" run --specs "$P" --python "$PY" --data-dir "$D" --json >"$P.run.json" 2>"$P.log"
    status="$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; res=r.get("result") or {}; s=res.get("stepSeconds"); print(r["status"], r.get("errorClass") or "", "micro", r.get("spec",{}).get("microBatch") or json.load(open(sys.argv[2]))["microBatch"], (s.get("median") if isinstance(s,dict) else s) or "")' "$P.run.json" "$P/$STRATEGY.json" 2>/dev/null)"
    say "$STRATEGY micro $M: $status"
    [[ "$status" == completed* ]] || break
  done
done
"${CLI[@]}" plan "${W_FLAGS[@]}" --data-dir "$D" >"$W/plan-after.txt" 2>&1
"${CLI[@]}" runs --data-dir "$D" --model "$MODEL" >"$W/runs.txt" 2>&1
"${CLI[@]}" runs --data-dir "$D" --model "$MODEL" --json >"$W/runs.json" 2>&1
say "done"
touch "$W/DONE"
