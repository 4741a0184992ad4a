#!/usr/bin/env bash
# Runs the app's own CLI on a GPU host without Node (the team's leased H200), from the pack that
# scripts/device-cli-pack.mjs wrote into device-run/cli: the xz'd Node is unpacked once to $NODE,
# and the native measurement module (when packed) is found through OFFLOAD_STUDIO_NATIVE, so
# `detect`, `measure`, `plan`, `tune` there are the same code as here.
#
#   bash scripts/device-cli.sh <command> [flags…]        e.g. measure --data-dir D --json
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACK="$ROOT/device-run/cli"
NODE="${NODE:-/tmp/node}"
[[ -x "$NODE" ]] || { xz -dc "$PACK/node.xz" >"$NODE" && chmod +x "$NODE"; } || exit 1
[[ -f "$PACK/offload_studio_native.node" ]] && export OFFLOAD_STUDIO_NATIVE="$PACK/offload_studio_native.node"
exec "$NODE" "$PACK/cli.mjs" "$@"
