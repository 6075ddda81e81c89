#!/usr/bin/env bash
# Installs Debian's `chromium` so the HTML report tests open their pages in a real browser. The driver
# (puppeteer-core) never downloads a browser; the tests find this one at /usr/bin/chromium. Idempotent.
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

chromium --version
