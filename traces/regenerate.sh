#!/usr/bin/env bash
# Regenerates the small reference traces and the compare baselines:
#   traces/franka-<backend>.pftrace, traces/franka-<backend>.pt.trace.json, traces/baselines/franka-<backend>.json
# for backend cpu and gpu (gpu needs a WebGPU adapter and the simulator's GPU backend; it is skipped with a note
# otherwise). Then refresh the golden outputs: UPDATE_GOLDEN=1 npx vitest run --project e2e test/golden.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1 XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
npx tsc -b
gsprof() { node packages/cli/bin/run.js "$@"; }

N_ENVS=${N_ENVS:-8}
STEPS=${STEPS:-40}
mkdir -p traces/baselines
for backend in cpu gpu; do
  tmp=$(mktemp -d)
  if ! gsprof record --example franka --backend "$backend" --n-envs "$N_ENVS" --steps "$STEPS" --warmup 8 --active $((STEPS - 8)) \
      --seed 0 --format both --no-fps --out "$tmp" --baseline-out "traces/baselines/franka-$backend.json" >"$tmp/log" 2>&1; then
    echo "regenerate: skipped franka on $backend: $(grep '^gsprof:' "$tmp/log" | tail -n1)"
    rm -rf "$tmp"
    continue
  fi
  mv "$tmp"/*.pftrace "traces/franka-$backend.pftrace"
  mv "$tmp"/*.pt.trace.json "traces/franka-$backend.pt.trace.json"
  # Baselines name the trace they came from; keep that stable across machines.
  node -e '
    const fs = require("fs"); const [f, src] = process.argv.slice(1);
    const b = JSON.parse(fs.readFileSync(f, "utf8")); b.source = src; fs.writeFileSync(f, JSON.stringify(b, null, 1) + "\n");
  ' "traces/baselines/franka-$backend.json" "traces/franka-$backend.pftrace"
  rm -rf "$tmp"
  echo "regenerate: franka on $backend: traces/franka-$backend.{pftrace,pt.trace.json}, traces/baselines/franka-$backend.json"
done
