#!/usr/bin/env bash
# One H200 lease for issues 27 and 25 (2026-12-05): every run is a stored spec run unchanged by the
# bundled runner (scripts/device-run-specs.sh) or the app's packed CLI, in priority order, each phase
# started only while the lease's deadline allows.
#
#   1. recheck/          sample runs' own specs (resources/samples/h200-*-sweep/*.spec.json) on the
#                        runner that now builds transformers' classes: did the samples' calibration move?
#   3. impl/             issue 27's same-instance comparison on this kind: the runner at 38463cd^ (both
#                        model implementations still there) with its own scripts/device-model-impl.sh.
#   2. b3-2k/, (5.) b3-4k/    issue 25: Llama-3.2-3B pushed toward its micro-batch boundary (specs by
#                        scripts/device-specs.ts from bench/device/h200-boundary-3b-{2k,4k}.grid.json).
#   4. recheck-offload/  one ZeRO-3 CPU-offload sample spec (needs the CPU Adam op built first).
#
# Prepared here, before the lease (device-run/ is git-ignored and carried):
#   node scripts/device-cli-pack.mjs device-run/cli
#   git archive 38463cd^ | tar -x -C /tmp/oldtree; ln -s $PWD/node_modules /tmp/oldtree/node_modules
#   (cd /tmp/oldtree && node scripts/device-cli-pack.mjs device-run/cli)
#   device-run/old/{scripts/device-cli.sh,scripts/device-model-impl.sh,resources (no samples),
#                   device-run/cli/cli.mjs, device-run/cli/node_modules -> ../../../cli/node_modules}
#   device-run/recheck/NN-*.json, device-run/recheck-offload/NN-*.json: copies of sample specs
#   npx tsx scripts/device-specs.ts bench/device/h200-boundary-3b-2k.grid.json device-run/b3/2k (and 4k)
#
#   [PHASES="b3-2k b3-4k recheck impl recheck-offload"] bash scripts/device-h200-recheck.sh WORK_DIR [DEADLINE_SECONDS=1080]
#   (phases in that order by default: issue 25's unmeasured picks first; touches WORK_DIR/DONE)
# Expects PYTHONPATH with DeepSpeed, NODE pointing to the unpacked Node of device-run/cli.
set -uo pipefail
W="$1"; DEADLINE="${2:-1080}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
start=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - start) )); }
say() { echo "[device-h200-recheck] +$(( $(date +%s) - start ))s $*" >&2; }
mkdir -p "$W"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv >"$W/gpu.csv" 2>&1
python3 -c 'import torch, deepspeed, transformers; print("torch", torch.__version__, "deepspeed", deepspeed.__version__, "transformers", transformers.__version__)' >"$W/versions.txt" 2>&1
say "$(cat "$W/gpu.csv" | tail -1) | $(cat "$W/versions.txt")"
bash "$ROOT/scripts/device-cli.sh" detect --json >"$W/detect.json" 2>"$W/detect.log"; say "detect exit=$?"

phase() { # name spec_dir
  local l; l=$(left)
  if (( l < 60 )); then say "skipped $1: ${l}s left"; return; fi
  say "phase $1 (${l}s left)"
  bash "$ROOT/scripts/device-run-specs.sh" "$2" "$W/$1" "$l"
}
impl() {
  if (( $(left) > 200 )); then
    say "phase impl ($(left)s left)"
    OFFLOAD_STUDIO_RESOURCES="$ROOT/device-run/old/resources" bash "$ROOT/device-run/old/scripts/device-model-impl.sh" "$W/impl" $(( $(left) - 120 )) h200
  else say "skipped impl: $(left)s left"; fi
}
for name in ${PHASES:-b3-2k b3-4k recheck impl recheck-offload}; do
  case "$name" in
    recheck) phase recheck "$ROOT/device-run/recheck" ;;
    b3-2k) phase b3-2k "$ROOT/device-run/b3/2k" ;;
    b3-4k) phase b3-4k "$ROOT/device-run/b3/4k" ;;
    impl) impl ;;
    recheck-offload) phase recheck-offload "$ROOT/device-run/recheck-offload" ;;
    *) say "unknown phase $name" ;;
  esac
done
say "done"
touch "$W/DONE"
