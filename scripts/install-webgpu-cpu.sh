#!/usr/bin/env bash
# Installs Mesa's lavapipe (software Vulkan) from Debian 12 bookworm-backports so that Dawn (the `webgpu`
# npm package) finds an adapter with timestamp-query on a machine without a GPU. Idempotent.
# Mesa 22 from plain bookworm is refused by Dawn, hence backports (Mesa 25.x).
set -euo pipefail

need_install=1
if dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -q '^2[5-9]\.'; then
  if dpkg-query -W libvulkan1 >/dev/null 2>&1; then need_install=0; fi
fi

if [ "$need_install" = 1 ]; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  list=/etc/apt/sources.list.d/bookworm-backports.sources
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # Reuse the mirror this machine already uses for bookworm, so no host is hard-coded here.
    mirror=$(grep -rhoE '^URIs:\s*\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n1 | awk '{print $2}')
    if [ -z "$mirror" ]; then
      mirror=$(grep -hE '^deb\s' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n1 | awk '{print $2}')
    fi
    [ -n "$mirror" ] || { echo "install-webgpu-cpu: no Debian mirror configured in /etc/apt" >&2; exit 1; }
    printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" \
      | $sudo_cmd tee "$list" >/dev/null
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
fi

echo "mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"

# Check that Dawn sees an adapter with timestamp-query (only once node_modules is present).
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ -d "$here/node_modules/webgpu" ]; then
  export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
  node "$here/scripts/check-webgpu.mjs"
fi
