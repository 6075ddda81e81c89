// Runs the whole vitest suite and ends with the plain line CI reads: `tests: N passed, N failed, N skipped`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

mkdirSync('.cache', { recursive: true });
const out = '.cache/vitest.json';
// A report left by an earlier run must never be read as this run's counts.
rmSync(out, { force: true });
const fileTimes = '.cache/test-file-times.json';
rmSync(fileTimes, { force: true });
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, '--reporter=./scripts/file-times-reporter.mjs', ...process.argv.slice(2)];
// The suite's import cache starts empty and stays out of the user's own cache folder.
const traceCache = '.cache/trace-cache';
rmSync(traceCache, { recursive: true, force: true });
// Mesa's shader cache (lavapipe's compiled kernels) in gsprof's folder of the user's cache, shared by every test
// file and worker and kept between runs: compiling the WGSL kernels is most of the suite's cost (on a cold cache
// test/gpu/constraint-kernels.test.ts alone took 654 s on 2 idle cores; on Franka's kernels the first step took
// 346 s of CPU cold and 12 s warm). Mesa keys each entry by the shader and the driver, so a changed kernel is
// compiled again, never served stale; the first run on a new machine pays for every kernel once.
const shaderCache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gsprof', 'mesa-shader-cache');
mkdirSync(shaderCache, { recursive: true });
const gpuCache = { MESA_SHADER_CACHE_DIR: shaderCache, MESA_SHADER_CACHE_DISABLE: 'false' };
const run = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1', GSPROF_CACHE_DIR: `${process.cwd()}/${traceCache}`, GSPROF_FILE_TIMES: fileTimes, ...gpuCache } });
if (!existsSync(out)) {
  console.log('tests: 0 passed, 1 failed');
  process.exit(run.status || 1);
}
const report = JSON.parse(readFileSync(out, 'utf8'));
// The 10 slowest files, each its import, setup and tests as vitest timed them (files run side by side in
// workers, so these add up to more than the run's wall time).
if (existsSync(fileTimes)) {
  const rows = JSON.parse(readFileSync(fileTimes, 'utf8')).slice(0, 10);
  console.log('slowest test files (import + setup + tests, seconds):');
  for (const r of rows) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(7)}  ${r.file} (import ${(r.importMs / 1000).toFixed(1)} s)`);
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(run.status ?? 1);
