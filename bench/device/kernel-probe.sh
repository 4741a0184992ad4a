#!/usr/bin/env bash
# The app's own kernel probe (resources/engine/kernel_probe.py, what `plan` spawns on a machine with a GPU) on
# this machine's GPU, in one call, for issue 46's proof:
#   - Phi-3-mini-4k (tests/fixtures/kernel-probe/phi-3-mini-4k.config.json: the unseen model, head_dim 96,
#     32 KV heads, fused qkv / gate_up, sliding window 2047) at seq 4096, bf16, checkpointing — the ladder the
#     plan asks for on an 80 GB GPU (1..32; 32 is expected to run out in the head);
#   - Llama-3.2-3B (the preset's stored config.json: the shape the catalogue's efficiencies were read off) at
#     seq 4096, for comparison.
# Each probe's JSON line is kept in OUT (default $OUT, else ./kernel-probe-out) with its stderr and wall time; a
# table of the figures is printed. Then, on a machine with Node:
#   npx tsx bench/kernel-probe-compare.ts OUT/phi3-s4096.json tests/fixtures/kernel-probe/phi-3-mini-4k.config.json
# compares the catalogue's step-time and memory figures with the probe's for that workload.
#
#   bash bench/device/kernel-probe.sh [OUT]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-${OUT:-kernel-probe-out}}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
"$PY" -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-")' | tee "$OUT/versions.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >> "$OUT/versions.txt" 2>/dev/null || true

"$PY" - "$OUT/llama-3.2-3b.config.json" <<'PY'
import json, sys
cfg = json.load(open("resources/engine/preset-configs.json"))["configs"]["llama-3.2-3b"]["config"]
json.dump(cfg, open(sys.argv[1], "w"))
PY

probe() { # name config seq micros [extra args]
  local name=$1 config=$2 seq=$3 micros=$4; shift 4
  local t0=$(date +%s%N)
  "$PY" resources/engine/kernel_probe.py --config "$config" --seq "$seq" --micro "$micros" --dtype bf16 "$@" \
    > "$OUT/$name.json" 2> "$OUT/$name.stderr.txt"
  local rc=$?
  local t1=$(date +%s%N)
  echo "$name: exit $rc, $(( (t1 - t0) / 1000000 )) ms wall" | tee -a "$OUT/wall.txt"
}
probe phi3-s4096 tests/fixtures/kernel-probe/phi-3-mini-4k.config.json 4096 1,2,4,6,8,16,32 --checkpointing
probe llama-3.2-3b-s4096 "$OUT/llama-3.2-3b.config.json" 4096 1,2,4,8,16 --checkpointing

"$PY" - "$OUT"/phi3-s4096.json "$OUT"/llama-3.2-3b-s4096.json <<'PY'
import json, sys
GiB = 2 ** 30
for path in sys.argv[1:]:
    try:
        out = json.loads(open(path).read().strip().splitlines()[-1])
    except Exception as exc:  # noqa: BLE001
        print(f"\n{path}: no JSON line ({exc})"); continue
    if not out.get("ok"):
        print(f"\n{path}: {out.get('class')}: {out.get('message')}"); continue
    a = out["arch"]
    print(f"\n{path}: {a['architecture']} on {out['gpuName']}, seq {out['seqLen']}, {out['dtype']}, "
          f"checkpointing {out['checkpointing']}, probe {out['seconds']} s")
    print(f"  head_dim {a['headDim']}, heads {a['numHeads']} / KV {a['numKvHeads']}, fused qkv {a['fusedQkv']}, "
          f"fused gate/up {a['fusedGateUp']}, vocab {a['vocabSize']}, tied {a['tieEmbeddings']}, "
          f"sliding window {a['slidingWindow']}, layers {a['layers']}; mask: {a['attentionMask']}")
    L = a["layers"]
    print(f"  {'micro':>5} {'layer s':>9} {'fwd s':>8} {'head s':>8} {'L*layer+head':>13} {'tok/s':>9} "
          f"{'kept GiB':>9} {'peak GiB':>9} {'head GiB':>9} {'reps':>4}")
    for m in out["micros"]:
        step = L * m["layerSeconds"] + m["headSeconds"]
        print(f"  {m['microBatch']:>5} {m['layerSeconds']:>9.4f} {m['layerForwardSeconds']:>8.4f} {m['headSeconds']:>8.4f} "
              f"{step:>13.3f} {m['tokens'] / step:>9.0f} {m['layerKeptBytes'] / GiB:>9.3f} {m['layerPeakBytes'] / GiB:>9.3f} "
              f"{m['headPeakBytes'] / GiB:>9.2f} {m['repeats']:>4}")
    if out["oom"]:
        print(f"  out of memory at micro {out['oom']['microBatch']} ({out['oom']['part']}): {out['oom']['message'][:120]}")
    if out["stopped"]:
        print(f"  stopped: {out['stopped']}")
PY
