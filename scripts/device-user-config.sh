#!/usr/bin/env bash
# A user's own ds_config through every step on a GPU host without Node or network (the team's leased
# H200), with the app's own CLI (packed by scripts/device-cli-pack.mjs into device-run/cli): plan it
# (--export writes yours/ and tuned/ with ds_config.json, accelerate_config.yaml, launch.txt, spec.json),
# run it unchanged (run --ds-config), run the tuned spec, plan again (the measured gain from history).
#
#   bash scripts/device-user-config.sh DATA_DIR OUT_DIR NAME CONFIG MODEL SEQ [probe]
#
# `probe`: the config is predicted not to fit; its own spec (yours/spec.json) is run once with the
# pre-flight set to warn, so the verdict is tested by the machine rather than by the pre-flight.
# Expects PYTHONPATH with DeepSpeed and TORCH_EXTENSIONS_DIR, as scripts/device-tune.sh does.
set -uo pipefail
DATA="$1"; OUT="$2"; NAME="$3"; CONFIG="$4"; MODEL="$5"; SEQ="$6"; MODE="${7:-}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI=(bash "$ROOT/scripts/device-cli.sh")
PY="$(command -v python3)"
W="$OUT/$NAME"
mkdir -p "$W"
say() { echo "[device-user-config] $NAME $*" >&2; }
t0=$(date +%s)
"${CLI[@]}" plan --ds-config "$CONFIG" --model "$MODEL" --seq "$SEQ" --data-dir "$DATA" --export "$W/export" --json >"$W/plan-before.json" 2>"$W/plan-before.log"
say "plan exit=$? $(( $(date +%s) - t0 ))s"
if [[ "$MODE" == probe ]]; then
  "$PY" - "$W/export/yours/spec.json" "$W/probe-spec.json" <<'PYEOF'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["preflight"] = "warn"
json.dump(spec, open(sys.argv[2], "w"), indent=2)
PYEOF
  "${CLI[@]}" run --specs "$W/probe-spec.json" --steps 4 --warmup 1 --max-seconds 240 --python "$PY" --data-dir "$DATA" --json >"$W/run-yours.json" 2>"$W/run-yours.log"
  say "probe exit=$? $(( $(date +%s) - t0 ))s"; tail -n 3 "$W/run-yours.log" >&2
  exit 0
fi
"${CLI[@]}" run --ds-config "$CONFIG" --model "$MODEL" --seq "$SEQ" --steps 6 --warmup 2 --python "$PY" --data-dir "$DATA" --json >"$W/run-yours.json" 2>"$W/run-yours.log"
say "run yours exit=$? $(( $(date +%s) - t0 ))s"; tail -n 2 "$W/run-yours.log" >&2
if [[ -f "$W/export/tuned/spec.json" ]]; then
  "${CLI[@]}" run --specs "$W/export/tuned/spec.json" --steps 6 --warmup 2 --python "$PY" --data-dir "$DATA" --json >"$W/run-tuned.json" 2>"$W/run-tuned.log"
  say "run tuned exit=$? $(( $(date +%s) - t0 ))s"; tail -n 2 "$W/run-tuned.log" >&2
fi
"${CLI[@]}" plan --ds-config "$CONFIG" --model "$MODEL" --seq "$SEQ" --data-dir "$DATA" >"$W/plan-after.txt" 2>&1
say "plan again exit=$? $(( $(date +%s) - t0 ))s"; grep -E "^measured here|tuned alternative" "$W/plan-after.txt" >&2
