#!/usr/bin/env bash
# Issue 47 item 6 on one GPU, in one device call: OLMoE-1B-7B (6.92B parameters, 1.28B active per
# token: 64 experts, 8 per token; its published config.json is tests/fixtures/model-configs/
# olmoe-1b-7b.json) planned and run by the app's own CLI, each run 2 warm-up + 6 measured steps.
# The runner builds it with transformers (router auxiliary loss on, each OlmoeSparseMoeBlock a ZeRO-3
# leaf module, no expert parallelism) and its log says the active count the TFLOPS use.
#
#   node scripts/device-cli-pack.mjs device-run/cli        (here, before; carry device-run)
#   bash bench/device/moe-olmoe-1b-7b.sh "$OUT"             (on the GPU host)
#
# Runs the two fastest strategies the plan says fit this card (their specs as planned). Expects, as scripts/device-tune.sh does,
# PYTHONPATH with DeepSpeed 0.19.8 + transformers 5.17 and TORCH_EXTENSIONS_DIR with the built ops
# (PYTHON overrides the interpreter; CLI="npx tsx electron/cli/main.ts" runs the unpacked CLI;
# MACHINE=detect.json plans for a described machine — a dry run of the plan step off the GPU host).
# Writes OUT/plan.json|log, OUT/run.json|log and OUT/summary.tsv (strategy, status, median step s,
# tokens/s, TFLOPS per GPU, peak GPU GiB, the plan row's step s and GPU GiB, losses): copy OUT to
# resources/samples/<card>-moe-olmoe/ and the figures to docs/models.md.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${1:-${OUT:-$ROOT/device-run/moe-olmoe}}"
DATA="$OUT/data"
CFG="$ROOT/tests/fixtures/model-configs/olmoe-1b-7b.json"
SEQ="${SEQ:-2048}"
PY="${PYTHON:-$(command -v python3)}"
read -r -a CLI <<<"${CLI:-bash $ROOT/scripts/device-cli.sh}"
mkdir -p "$DATA"
# The interpreter the model probe (plan's count) and the runs use: the data folder's selected one.
[[ -f "$DATA/settings.json" ]] || printf '{"pythonPath": "%s"}\n' "$PY" >"$DATA/settings.json"
say() { echo "[moe-olmoe] $*" >&2; }
t0=$(date +%s)

"${CLI[@]}" plan --model "$CFG" --seq "$SEQ" --data-dir "$DATA" ${MACHINE:+--machine "$MACHINE"} --json >"$OUT/plan.json" 2>"$OUT/plan.log"
code=$?
say "plan exit=$code $(( $(date +%s) - t0 ))s"
[[ $code -eq 0 ]] || { tail -n 5 "$OUT/plan.log" >&2; exit "$code"; }
grep -h "Mixture-of-Experts" "$OUT/plan.json" >/dev/null || say "warning: the plan has no Mixture-of-Experts note"
STRATEGIES="$("$PY" - "$OUT/plan.json" <<'PYEOF'
import json, sys
plan = json.load(open(sys.argv[1]))
# The two fastest predicted strategies that fit this card (an H200 and an H100 pick differently).
fit = sorted((s for s in plan["strategies"] if s.get("fits") and s.get("predicted")), key=lambda s: s["predicted"]["stepSeconds"])
print(",".join(s["id"] for s in fit[:2]))
PYEOF
)"
say "strategies: $STRATEGIES"
[[ -n "$STRATEGIES" ]] || { say "the plan says nothing fits this card"; exit 3; }
# A described machine's plan does not run here: a dry run ends after the plan.
[[ -z "${MACHINE:-}" ]] || { say "MACHINE given: dry run, nothing started"; exit 0; }
"${CLI[@]}" run --model "$CFG" --strategy "$STRATEGIES" --seq "$SEQ" --steps 6 --warmup 2 --max-seconds 1500 \
  --python "$PY" --data-dir "$DATA" --json >"$OUT/run.json" 2>"$OUT/run.log"
code=$?
say "run exit=$code $(( $(date +%s) - t0 ))s"
tail -n 6 "$OUT/run.log" >&2
# The planned spec's micro batch may differ from the form's: the plan's row is the prediction shown.
"$PY" - "$OUT/run.json" "$OUT/plan.json" "$OUT/summary.tsv" <<'PYEOF'
import json, sys

try:
    runs = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    sys.exit(f"[moe-olmoe] no run answer to summarise: {exc}")
rows = {s["id"]: s for s in json.load(open(sys.argv[2]))["strategies"]}
gib = lambda b: f"{b / 2**30:.1f}" if isinstance(b, (int, float)) else ""
with open(sys.argv[3], "w") as fh:
    fh.write("strategy\tstatus\tstep_s\ttokens_per_s\ttflops_per_gpu\tgpu_peak_gib\tpredicted_step_s\tpredicted_gpu_gib\tloss_first\tloss_last\terror\n")
    for r in runs:
        res, row = r.get("result") or {}, rows.get(r.get("strategy"), {})
        fh.write("\t".join(str(x if x is not None else "") for x in (
            r.get("strategy"), r.get("status"), res.get("stepSeconds"), res.get("tokensPerSecond"), res.get("tflopsPerGpu"),
            gib((res.get("memory") or {}).get("peakGpuBytes")), (row.get("predicted") or {}).get("stepSeconds"),
            gib((row.get("memory") or {}).get("gpuBytes")), res.get("lossFirst"), res.get("lossLast"),
            r.get("message"))) + "\n")
print(open(sys.argv[3]).read(), file=sys.stderr)
PYEOF
exit "$code"
