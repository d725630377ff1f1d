#!/usr/bin/env bash
# Makes sure a Chromium for the real-browser tests (vitest project `browser`) is on the PATH:
# installs Debian's `chromium` package when it is missing (as root, or through sudo). Set
# RXKUBE_CHROMIUM to use another Chromium or Chrome binary instead.
set -euo pipefail
if [ -n "${RXKUBE_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; then exit 0; fi
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
echo "installing Debian's chromium for the real-browser tests (apt-get)" >&2
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1
