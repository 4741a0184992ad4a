#!/usr/bin/env bash
# Creates (idempotently) the Python environment that runs resources/engine and its tests.
#
#   scripts/setup-engine-venv.sh            -> prints the venv's python path as the LAST line
#
# Location: $OFFLOAD_STUDIO_ENGINE_VENV, else ~/.cache/offload-studio/engine-venv-<hash>, where
# <hash> is the first 12 hex digits of sha256(resources/engine/requirements.txt): a change of
# pins gets a fresh environment instead of mutating a cached one. A marker file is written
# only after everything succeeded, so an interrupted install is redone on the next call.
# Progress goes to stderr; stdout carries only the python path.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQ="$ROOT/resources/engine/requirements.txt"
PYTHON="${PYTHON:-python3}"

sha256_12() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -c1-12
  else shasum -a 256 "$1" | cut -c1-12; fi   # macOS
}
HASH="$(sha256_12 "$REQ")"
VENV="${OFFLOAD_STUDIO_ENGINE_VENV:-$HOME/.cache/offload-studio/engine-venv-$HASH}"
MARKER="$VENV/.offload-studio-complete"
VPY="$VENV/bin/python"
log() { echo "[setup-engine-venv] $*" >&2; }

if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$HASH" && -x "$VPY" ]]; then
  echo "$VPY"
  exit 0
fi

mkdir -p "$(dirname "$VENV")"
# One installer at a time per venv (parallel CI jobs, a test run racing the app).
exec 9>"$VENV.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$HASH" && -x "$VPY" ]]; then
  echo "$VPY"
  exit 0
fi

start=$(date +%s)
if [[ -e "$VENV" && ! -f "$VENV/pyvenv.cfg" && -n "$(ls -A "$VENV" 2>/dev/null)" ]]; then
  log "refusing to use $VENV: it exists, is not empty and is not a venv"
  exit 1
fi
rm -f "$MARKER"
if [[ ! -x "$VPY" ]]; then
  log "creating $VENV with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv "$VENV" >&2
fi
# torch first, on its own: DeepSpeed's setup.py imports torch, so DeepSpeed is installed
# with --no-build-isolation against this torch (PyPI ships DeepSpeed as an sdist).
TORCH_PIN="$(grep -E '^torch==' "$REQ")"
log "installing $TORCH_PIN"
"$VPY" -m pip install --disable-pip-version-check -q "$TORCH_PIN" >&2
log "installing the rest of $REQ"
# DS_BUILD_OPS=0: no ops compiled into the wheel; they are JIT-built below into the venv.
DS_BUILD_OPS=0 "$VPY" -m pip install --disable-pip-version-check -q --no-build-isolation -r "$REQ" >&2

# Pre-build the ops the runner needs on this host (CPU Adam for offload; the shared-memory
# comm op DeepSpeed's CPU accelerator loads at init) into the venv, so a test run or the
# first benchmark does not pay the JIT build. bench.py uses <venv>/torch_extensions when
# TORCH_EXTENSIONS_DIR is unset. A failure here is reported, not fatal: the runner's
# pre-flight names op_build problems itself.
log "pre-building DeepSpeed ops into $VENV/torch_extensions"
ops_start=$(date +%s)
if TORCH_EXTENSIONS_DIR="$VENV/torch_extensions" "$VPY" - >&2 <<'PY'
from deepspeed.accelerator import get_accelerator
acc = get_accelerator()
names = ["CPUAdamBuilder"] + (["ShareMemCommBuilder"] if acc.device_name() == "cpu" else [])
for name in names:
    builder = acc.create_op_builder(name)
    if builder is not None and builder.is_compatible():
        builder.load()
        print(f"built {name}")
PY
then log "ops built in $(( $(date +%s) - ops_start )) s"
else log "WARNING: op pre-build failed; the runner will JIT-build (or report op_build) on first use"
fi

echo "$HASH" > "$MARKER"
log "ready in $(( $(date +%s) - start )) s"
echo "$VPY"
