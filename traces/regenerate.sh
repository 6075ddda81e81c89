#!/usr/bin/env bash
# Regenerates the small reference traces and the compare baselines:
#   traces/franka-<backend>.pftrace, traces/franka-<backend>.pt.trace.json (one short run: STEPS steps, the first
#   8 warm-up; small files that show a cold start),
#   traces/baselines/franka-<backend>.json and franka-<backend>-rerun.json (RUNS runs each of docs/ci.md's job:
#   300 warm-up steps, 200 recorded; recorded back to back: the golden compare test checks that two sets of runs of
#   the same code are no regression)
# for backend cpu and gpu (gpu needs a WebGPU adapter; it is skipped with a note otherwise). Then refresh the
# golden outputs: UPDATE_GOLDEN=1 npx vitest run --project e2e test/golden.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1 XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
npx tsc -b
gsprof() { node packages/cli/bin/run.js "$@"; }

N_ENVS=${N_ENVS:-8}
STEPS=${STEPS:-40}
RUNS=${RUNS:-10}
mkdir -p traces/baselines
for backend in cpu gpu; do
  tmp=$(mktemp -d)
  opts=(--example franka --backend "$backend" --n-envs "$N_ENVS" --seed 0 --no-fps)
  ci=(--steps 2300 --warmup 300 --active 2000 --runs "$RUNS")
  if ! gsprof record "${opts[@]}" --steps "$STEPS" --warmup 8 --active $((STEPS - 8)) --out "$tmp/t" >"$tmp/log" 2>&1 ||
     ! gsprof record "${opts[@]}" "${ci[@]}" --out "$tmp/a" --baseline-out "traces/baselines/franka-$backend.json" >>"$tmp/log" 2>&1 ||
     ! gsprof record "${opts[@]}" "${ci[@]}" --out "$tmp/b" --baseline-out "traces/baselines/franka-$backend-rerun.json" >>"$tmp/log" 2>&1; then
    echo "regenerate: skipped franka on $backend: $(grep '^gsprof:' "$tmp/log" | tail -n1)"
    rm -rf "$tmp"
    continue
  fi
  mv "$tmp"/t/*.pftrace "traces/franka-$backend.pftrace"
  mv "$tmp"/t/*.pt.trace.json "traces/franka-$backend.pt.trace.json"
  # Baselines name the traces they came from and the machine; keep them stable across machines.
  for f in "traces/baselines/franka-$backend.json" "traces/baselines/franka-$backend-rerun.json"; do
    node -e '
      const fs = require("fs"); const [f] = process.argv.slice(1);
      const b = JSON.parse(fs.readFileSync(f, "utf8"));
      b.runs.forEach((r, k) => { r.source = `run-${k + 1}`; });
      delete b.config.gitCommit;
      fs.writeFileSync(f, JSON.stringify(b, null, 1).replace(/\[\n\s*([-\d.eE+,\s]*?)\n\s*\]/g, (_m, body) => `[${body.replace(/\s+/g, "")}]`) + "\n");
    ' "$f"
  done
  rm -rf "$tmp"
  echo "regenerate: franka on $backend: traces/franka-$backend.{pftrace,pt.trace.json}, traces/baselines/franka-$backend{,-rerun}.json"
done
