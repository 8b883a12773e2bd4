#!/usr/bin/env bash
# Installs the system packages hlox needs, only those that are missing.
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail

need=()
for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
    echo "install-deps: installing ${need[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "install-deps: cargo not found. Install the Rust toolchain (https://rustup.rs), then re-run." >&2
    exit 1
fi
