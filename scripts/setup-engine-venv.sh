#!/usr/bin/env bash
# Creates (idempotently) the Python environment that runs resources/engine and its tests.
#
#   scripts/setup-engine-venv.sh            -> prints the venv's python path as the LAST line
#   scripts/setup-engine-venv.sh --stamp    -> prints the marker a current venv carries
#
# Location: $OFFLOAD_STUDIO_ENGINE_VENV, else ~/.cache/offload-studio/engine-venv-<hash>, where
# <hash> is the first 12 hex digits of sha256 over the install inputs (requirements.txt,
# bootstrap-requirements.txt, install-steps.json): a change of pins or steps gets a fresh
# environment instead of mutating a cached one. The install sequence itself is data
# (resources/engine/install-steps.json, run by install_steps.py) shared with the app's own
# "create the engine environment", so the two cannot drift. A marker file recording the hash and
# the bootstrap version is written only after everything succeeded, so an interrupted install
# is redone on the next call and a cache built by older steps is rebuilt, not trusted.
# Progress goes to stderr; stdout carries only the python path.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENGINE="$ROOT/resources/engine"
REQ="$ENGINE/requirements.txt"
PYTHON="${PYTHON:-python3}"

sha256_12() {
  if command -v sha256sum >/dev/null 2>&1; then cat "$@" | sha256sum | cut -c1-12
  else cat "$@" | shasum -a 256 | cut -c1-12; fi   # macOS
}
HASH="$(sha256_12 "$REQ" "$ENGINE/bootstrap-requirements.txt" "$ENGINE/install-steps.json")"
BOOTSTRAP_VERSION="$(sed -n 's/.*"bootstrapVersion": *\([0-9][0-9]*\).*/\1/p' "$ENGINE/install-steps.json")"
STAMP="$HASH bootstrap=$BOOTSTRAP_VERSION"
# --stamp: print what a current marker must say, and nothing else (tests and CI compare it).
if [[ "${1:-}" == "--stamp" ]]; then echo "$STAMP"; exit 0; fi
VENV="${OFFLOAD_STUDIO_ENGINE_VENV:-$HOME/.cache/offload-studio/engine-venv-$HASH}"
MARKER="$VENV/.offload-studio-complete"
VPY="$VENV/bin/python"
log() { echo "[setup-engine-venv] $*" >&2; }

if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$STAMP" && -x "$VPY" ]]; then
  echo "$VPY"
  exit 0
fi

mkdir -p "$(dirname "$VENV")"
# One installer at a time per venv (parallel CI jobs, a test run racing the app).
exec 9>"$VENV.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$STAMP" && -x "$VPY" ]]; then
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
# The steps (bootstrap pip/setuptools/wheel, torch, then DeepSpeed with --no-build-isolation
# against that torch) come from install-steps.json; see install_steps.py.
log "installing (steps from $ENGINE/install-steps.json, bootstrap v$BOOTSTRAP_VERSION)"
"$PYTHON" "$ENGINE/install_steps.py" run --python "$VPY" --requirements "$REQ" >&2

# Pre-build the ops the runner needs on this host into the venv, so a test run or the first
# benchmark does not pay the JIT build. A failure is reported, not fatal: the runner's
# pre-flight names op_build problems itself. The build goes to a folder of its own, swapped in
# only once it finished: a build stopped half way (Ctrl-C, the OOM killer during the compile)
# left torch's `lock` file in the op's folder, and every later run waited on it forever.
# Stopped by a signal, the environment is not marked complete and its previous ops are kept.
EXT="$VENV/torch_extensions"
EXT_NEW="$VENV/torch_extensions.partial"
if [[ ! -e "$EXT" && -d "$EXT.old" ]]; then mv "$EXT.old" "$EXT"; fi   # a swap cut short
rm -rf "$EXT_NEW"
trap 'rm -rf "$EXT_NEW"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
log "pre-building DeepSpeed ops into $EXT"
ops_start=$(date +%s)
ops_status=0
TORCH_EXTENSIONS_DIR="$EXT_NEW" "$VPY" "$ENGINE/prebuild_ops.py" >&2 || ops_status=$?
if (( ops_status == 0 )); then
  rm -rf "$EXT.old"
  if [[ -e "$EXT" ]]; then mv "$EXT" "$EXT.old"; fi
  mv "$EXT_NEW" "$EXT"
  rm -rf "$EXT.old"
  log "ops built in $(( $(date +%s) - ops_start )) s"
elif (( ops_status > 128 )); then
  log "ERROR: the DeepSpeed op pre-build was interrupted (signal $(( ops_status - 128 ))); $VENV is not marked complete and its previous ops are kept. Run scripts/setup-engine-venv.sh again; if the OOM killer stopped the compiler, free memory or set MAX_JOBS=1 first."
  exit 1
else
  log "WARNING: op pre-build failed; the runner will JIT-build (or report op_build) on first use"
fi

echo "$STAMP" > "$MARKER"
log "size $(du -sh "$VENV" 2>/dev/null | cut -f1)"
log "ready in $(( $(date +%s) - start )) s"
echo "$VPY"
