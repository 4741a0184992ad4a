#!/usr/bin/env bash
# Issue 27's measured comparison on the H200 host: the same specs run with transformers' own model
# classes (the runner's default, resources/engine/hf_model.py) and with the runner's former compact
# modules (OFFLOAD_STUDIO_MODEL_IMPL=legacy, model.py), back to back on the same instance, through
# the app's own CLI (packed by scripts/device-cli-pack.mjs into device-run/cli). Each impl keeps its
# own data folder so neither's runs calibrate the other's plan.
#
#   node scripts/device-cli-pack.mjs device-run/cli                     (here, before the lease)
#   bash scripts/device-model-impl.sh OUT_DIR [DEADLINE_SECONDS=400] [CASES=h200|h100]   (on the host)
#
# CASES h100: the same comparison sized for an 80 GB card (Llama-3.2-1B ZeRO-2 seq 2048 micro 8,
# Llama-3.2-3B ZeRO-2 seq 2048 micro 4, Llama-3.2-3B ZeRO-3 seq 4096 micro 2), for a lease that gets
# an H100 where no H200 comes.
#
# OUT_DIR/<case>-<impl>.json / .log: `run --json` and its log; OUT_DIR/data-<impl>: the stored runs;
# OUT_DIR/summary.tsv: case, impl, status, median step seconds, tokens/s, peak GPU GiB, the model
# class the runner built (from the run's config line). A case is not started past the deadline,
# so the whole script stays within a 7-minute command. Expects PYTHONPATH with DeepSpeed and
# transformers and TORCH_EXTENSIONS_DIR, as scripts/device-tune.sh does.
set -uo pipefail
OUT="$1"; DEADLINE="${2:-400}"; SET="${3:-h200}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="${PYTHON:-$(command -v python3)}"
mkdir -p "$OUT"
say() { echo "[device-model-impl] $*" >&2; }
"$PY" -c 'import torch, deepspeed, transformers; print("torch", torch.__version__, "deepspeed", deepspeed.__version__, "transformers", transformers.__version__)' >"$OUT/versions.txt" 2>&1
say "$(cat "$OUT/versions.txt")"
# name model strategy seq micro
if [[ "$SET" == h100 ]]; then
  CASES=(
    "llama-3.2-1b-zero2 llama-3.2-1b gpu-zero2 2048 8"
    "llama-3.2-3b-zero2 llama-3.2-3b gpu-zero2 2048 4"
    "llama-3.2-3b-zero3 llama-3.2-3b gpu-zero3 4096 2"
  )
else
  CASES=(
    "llama-3.2-1b-zero2 llama-3.2-1b gpu-zero2 2048 8"
    "llama-3.2-3b-zero2 llama-3.2-3b gpu-zero2 4096 16"
    "mistral-7b-zero3 mistral-7b gpu-zero3 4096 2"
  )
fi
start=$(date +%s)
for c in "${CASES[@]}"; do
  read -r name model strategy seq micro <<<"$c"
  for impl in transformers legacy; do
    if (( $(date +%s) - start >= DEADLINE )); then say "deadline ($DEADLINE s) reached before $name $impl"; break 2; fi
    t0=$(date +%s)
    OFFLOAD_STUDIO_MODEL_IMPL="$impl" "${CLI[@]}" run --model "$model" --strategy "$strategy" --seq "$seq" --micro-batch "$micro" \
      --steps 3 --warmup 2 --max-seconds 150 --python "$PY" --data-dir "$OUT/data-$impl" --json >"$OUT/$name-$impl.json" 2>"$OUT/$name-$impl.log"
    say "$name $impl exit=$? $(( $(date +%s) - t0 ))s"
  done
done
"$PY" - "$OUT" <<'PYEOF' | tee "$OUT/summary.tsv" >&2
import json, os, re, sys
out = sys.argv[1]
def runs(path):
    text = open(path).read().strip()
    if not text:
        return []
    try:
        v = json.loads(text)
        return v if isinstance(v, list) else v.get("runs", [v]) if isinstance(v, dict) else []
    except json.JSONDecodeError:
        return [json.loads(l) for l in text.splitlines() if l.strip().startswith("{")]
def median(v):
    return v.get("median") if isinstance(v, dict) else v
def classes(data_dir):
    found = []
    for dirpath, _, files in os.walk(data_dir):
        for f in files:
            try:
                text = open(os.path.join(dirpath, f), errors="ignore").read()
            except OSError:
                continue
            found += re.findall(r'"modelClass":\s*"([A-Za-z0-9_]+)"', text)
    return sorted(set(found))
print("case\timpl\tstatus\tstep_s\ttokens_per_s\tpeak_gpu_gib\tmodel_class")
for f in sorted(os.listdir(out)):
    m = re.match(r"(.+)-(transformers|legacy)\.json$", f)
    if not m:
        continue
    for r in runs(os.path.join(out, f)) or [{"status": "no output"}]:
        res = r.get("result") or {}
        peak = (res.get("memory") or {}).get("peakGpuBytes")
        step = median(res.get("stepSeconds"))
        tps = median(res.get("tokensPerSecond"))
        print("\t".join([m.group(1), m.group(2), str(r.get("status")) + ("" if not r.get("errorClass") else f" {r['errorClass']}: {r.get('message')}"),
                         f"{step:.3f}" if isinstance(step, (int, float)) else "-", f"{tps:.0f}" if isinstance(tps, (int, float)) else "-",
                         f"{peak / 2**30:.2f}" if isinstance(peak, (int, float)) else "-", ",".join(classes(os.path.join(out, f"data-{m.group(2)}")))]))
PYEOF
