#!/usr/bin/env bash
# Installs the shared library that ../shared/tools/trace_processor_shell (Perfetto v58.2, built against Debian's
# protobuf) needs, so the importer tests can check their expected rows against it. Idempotent.
set -euo pipefail

if ! ldconfig -p | grep -q 'libprotobuf\.so\.32'; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends libprotobuf32 >/dev/null
fi
