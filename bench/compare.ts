/**
 * npm run bench:compare: does the documented CI workflow (docs/ci.md) cry wolf, and does it catch a real
 * slowdown? Each compare records both sides afresh (record --runs N, then compare), exactly as the CI job does.
 *
 *   --compares K   compares of unchanged code (default 20): false alarms are the ones that exit 1
 *   --detect K     compares against a deliberately slower build (default 10)
 *   --slow S:R     the slower build runs CPU stage S R times per step instead of once (default rne:3, about +25% step time);
 *                  several settings separated by commas are measured one after the other
 *   --runs N       runs per side (default 10, as docs/ci.md)
 *
 * The slower build is a scratch copy of the built packages in which one stage's function repeats its (idempotent)
 * work: real extra CPU work in the step, so the slowdown holds whatever else the shared machine runs (a cgroup CPU
 * quota does not: on a busy machine the process never had the share the quota takes away). The slowdown actually
 * measured is printed with each compare. Prints one line per compare and a summary.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? String(process.argv[i + 1]) : fallback;
};
const COMPARES = Number(arg('compares', '20'));
const DETECT = Number(arg('detect', '10'));
const SLOW = arg('slow', 'rne:3').split(',').map((s) => {
  const [stage, repeat] = s.split(':');
  if (!stage || !/^[a-z_]+$/.test(stage) || !(Number(repeat) >= 2)) throw new Error(`--slow ${s}: expected STAGE:REPEAT, e.g. rne:3`);
  return { stage, repeat: Number(repeat) };
});
const RUNS = arg('runs', '10');
const BIN = 'packages/cli/bin/run.js';
const RECORD = ['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '8', '--steps', '2300', '--warmup', '300', '--active', '2000', '--runs', RUNS];

/** Only the stages that recompute their outputs from the state are safe to repeat (the trajectory is unchanged). */
const IDEMPOTENT = new Set(['kinematics', 'com', 'crb', 'rne', 'passive', 'collision']);
const camel = (stage: string): string => stage.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * A copy of the built packages whose CPU step runs `stage` `repeat` times; node_modules links to the real one
 * except for the workspace packages, which point at the copy. Returns the copy's CLI entry point.
 */
function slowBuild(root: string, stage: string, repeat: number): string {
  if (!IDEMPOTENT.has(stage)) throw new Error(`--slow ${stage}: repeat one of ${[...IDEMPOTENT].join(', ')}`);
  const repo = resolve('.');
  cpSync(join(repo, 'packages'), join(root, 'packages'), { recursive: true, filter: (src) => !/[/\\]test[/\\]/.test(src.slice(repo.length)) });
  mkdirSync(join(root, 'node_modules', '@gsprof'), { recursive: true });
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === '@gsprof' || name === '.bin') continue;
    symlinkSync(join(repo, 'node_modules', name), join(root, 'node_modules', name));
  }
  for (const pkg of readdirSync(join(root, 'packages'))) symlinkSync(join(root, 'packages', pkg), join(root, 'node_modules', '@gsprof', pkg));
  const file = join(root, 'packages', 'sim-core', 'dist', 'cpu', 'step.js');
  const fn = camel(stage);
  const src = readFileSync(file, 'utf8');
  const from = `import { ${fn} } from '../stages/${stage}.js';`;
  if (!src.includes(from)) throw new Error(`cannot find the import of ${fn} in the built step.js`);
  writeFileSync(file, src.replace(from, `import { ${fn} as ${fn}Once } from '../stages/${stage}.js';\nconst ${fn} = (m, d, e0, e1) => { for (let i = 0; i < ${repeat}; i++) ${fn}Once(m, d, e0, e1); };`));
  return join(root, BIN);
}

function record(out: string, bin = BIN): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, ...RECORD, '--out', out], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  if (r.status !== 0) throw new Error(`record failed: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

function compare(base: string, cur: string): { code: number; ratio: number; verdict: string; p: number | null; seconds: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'compare', base, cur, '--json'], { encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status === 2) throw new Error(`compare failed: ${r.stdout}${r.stderr}`);
  const j = JSON.parse(r.stdout) as { decision: { ratio: number; verdict: string; pValue: number | null } };
  return { code: r.status ?? -1, ratio: j.decision.ratio, verdict: j.decision.verdict, p: j.decision.pValue, seconds };
}

const work = mkdtempSync(join(tmpdir(), 'gsprof-bench-compare-'));
let falseAlarms = 0;
const jobSeconds: number[] = [];
const slowText = SLOW.map((s) => `${s.stage} x${s.repeat}`).join(', ');
console.log(`bench:compare: ${COMPARES} compares of unchanged code, ${DETECT} against each slower build (${slowText}), ${RUNS} runs per side`);
const line = (what: string, c: ReturnType<typeof compare>, extra = ''): string =>
  `${what}: exit ${c.code}, step time ${((c.ratio - 1) * 100).toFixed(1)}%, ${c.verdict}, p ${c.p === null ? '-' : c.p.toPrecision(2)}${extra}`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  for (let i = 0; i < COMPARES; i++) {
    const base = join(work, `same-${i}-base`);
    const cur = join(work, `same-${i}-cur`);
    const tb = record(base);
    const tc = record(cur);
    const c = compare(base, cur);
    jobSeconds.push(tb + tc + c.seconds);
    if (c.code === 1) falseAlarms++;
    console.log(line(`unchanged ${i + 1}/${COMPARES}`, c, ` (job ${(tb + tc + c.seconds).toFixed(0)} s)`));
  }
  const detections: string[] = [];
  for (const { stage, repeat } of DETECT > 0 ? SLOW : []) {
    const bin = slowBuild(join(work, `build-${stage}-${repeat}`), stage, repeat);
    let caught = 0;
    const ratios: number[] = [];
    for (let i = 0; i < DETECT; i++) {
      const base = join(work, `slow-${stage}-${repeat}-${i}-base`);
      const cur = join(work, `slow-${stage}-${repeat}-${i}-cur`);
      record(base);
      record(cur, bin);
      const c = compare(base, cur);
      ratios.push(c.ratio);
      if (c.code === 1) caught++;
      console.log(line(`${stage} x${repeat} ${i + 1}/${DETECT}`, c));
    }
    detections.push(`detection, ${stage} x${repeat}: ${caught} of ${DETECT} compares exited 1 (measured slowdown: median ${((median(ratios) - 1) * 100).toFixed(1)}%)`);
  }
  console.log(`false alarms: ${falseAlarms} of ${COMPARES} unchanged compares exited 1`);
  for (const d of detections) console.log(d);
  if (jobSeconds.length) console.log(`CI job (record both sides + compare): median ${median(jobSeconds).toFixed(0)} s, max ${jobSeconds.reduce((a, b) => Math.max(a, b)).toFixed(0)} s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
