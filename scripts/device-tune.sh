#!/usr/bin/env bash
# `tune` for real on a GPU host without Node or network (the team's leased H200): the app's own CLI,
# packed by scripts/device-cli-pack.mjs into device-run/cli, run from this checkout against a data
# folder that holds the machine kind's history (load-samples + measure --import, made beforehand).
#
#   bash scripts/device-tune.sh DATA_DIR OUT_DIR NAME -- <tune flags…>
#
# Expects: PYTHONPATH with DeepSpeed (wheels installed with pip --target), TORCH_EXTENSIONS_DIR with
# the pre-built ops. Writes OUT_DIR/NAME.json (tune --json), OUT_DIR/NAME.log (its progress).
set -uo pipefail
DATA="$1"; OUT="$2"; NAME="$3"; shift 4
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$OUT"
t0=$(date +%s)
bash "$ROOT/scripts/device-cli.sh" tune --data-dir "$DATA" --python "$(command -v python3)" --json "$@" >"$OUT/$NAME.json" 2>"$OUT/$NAME.log"
code=$?
echo "[device-tune] $NAME exit=$code $(( $(date +%s) - t0 ))s" >&2
tail -n 4 "$OUT/$NAME.log" >&2
exit $code
