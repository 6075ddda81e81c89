#!/usr/bin/env bash
# The Franka and ANYmal C speed benchmarks on a real GPU (written for an NVIDIA H200), 30000 envs,
# performanceMode on, each with the headline ("fast") and the accurate solver settings; prints env-steps/s.
#
#   bash bench/gpu-h200.sh [ADAPTER]        ADAPTER (index or name) becomes GSPROF_ADAPTER
#
# Installs nothing: run it in a checkout where `npm ci` has been run (node_modules present). Each of the four
# runs is a fresh process with a throwaway kernel cache (the seed's disposable cache), so the build and
# first-step times include the full compile. Whole script: under 6 minutes (each run's stepping is capped).
# Overrides, for a quick check on a small machine:
#   GSPROF_BENCH_ENVS (30000)  GSPROF_BENCH_STEPS (1000)  GSPROF_BENCH_MAX_SECONDS (40: stepping time per run)
#   GSPROF_BENCH_RUN_TIMEOUT (85: seconds per run, compile included; stepping stops 10 s before it)
#   GSPROF_BENCH_OUT (results file)
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "gpu-h200.sh: $*" >&2; exit 1; }
command -v node >/dev/null || die "node is not on PATH (Node >= 20 needed)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node >= 20 needed, found $(node --version)"
for dep in tsx webgpu @gsprof/sim-core; do
  [ -d "node_modules/$dep" ] || die "node_modules/$dep is missing: run 'npm ci' in $(pwd) first (this script installs nothing)"
done
[ -f packages/sim-core/src/index.ts ] || die "packages/sim-core/src is missing: run this from a gsprof checkout"

if [ $# -ge 1 ] && [ -n "$1" ]; then export GSPROF_ADAPTER="$1"; fi
envs=${GSPROF_BENCH_ENVS:-30000}
steps=${GSPROF_BENCH_STEPS:-1000}
max_seconds=${GSPROF_BENCH_MAX_SECONDS:-40}
run_timeout=${GSPROF_BENCH_RUN_TIMEOUT:-85}
out=${GSPROF_BENCH_OUT:-${OUT:-.}/gpu-h200-results.txt}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export XDG_RUNTIME_DIR="$cache/runtime"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
json="$cache/runs.jsonl"

echo "gsprof GPU speed benchmarks: $envs envs, up to $steps steps (max ${max_seconds} s of stepping per run), performanceMode on"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), node $(node --version), GSPROF_ADAPTER=${GSPROF_ADAPTER:-<default>}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

failures=0
for scene in franka anymal_c; do
  for settings in fast accurate; do
    # A fresh cache per run: every run pays (and reports) its own compile.
    run_cache="$cache/$scene-$settings"
    mkdir -p "$run_cache"
    echo "--- $scene, $settings settings"
    if ! XDG_CACHE_HOME="$run_cache" MESA_SHADER_CACHE_DIR="$run_cache/mesa_shader_cache" \
      timeout "$run_timeout" node --conditions=@gsprof/source --import tsx bench/gpu-speed.ts \
        --scene "$scene" --settings "$settings" --n-envs "$envs" --steps "$steps" \
        --max-seconds "$max_seconds" --budget-seconds "$((run_timeout - 10))" --json "$json"; then
      echo "$scene $settings: FAILED or timed out after ${run_timeout} s"
      failures=$((failures + 1))
    fi
  done
done

{
  echo "# gsprof bench/gpu-h200.sh $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# scene settings nEnvs steps seconds env-steps/s build_s first_step_s solver iterations self_collision resets adapter"
  if [ -f "$json" ]; then
    node -e '
      const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean);
      for (const l of lines) {
        const r = JSON.parse(l);
        console.log([r.scene, r.settings, r.nEnvs, r.steps, r.seconds.toFixed(2), Math.round(r.envStepsPerS),
          r.buildS.toFixed(2), r.firstStepS.toFixed(2), r.solver, r.iterations, r.selfCollision ? "on" : "off",
          r.resets, JSON.stringify(r.adapter)].join(" "));
      }' "$json"
  fi
} >"$out"
echo "=== results ($out)"
cat "$out"
[ "$failures" -eq 0 ] || die "$failures of 4 runs failed"
