/**
 * npm run bench:compare: does the documented CI workflow (docs/ci.md) cry wolf, and does it catch a real
 * slowdown? Each compare records both sides afresh (record --runs N, then compare), exactly as the CI job does.
 *
 *   --compares K   compares of unchanged code (default 20): false alarms are the ones that exit 1
 *   --detect K     compares where the current side runs in a cgroup limited to --quota of one core (default 10)
 *   --quota Q      CPU share for the slowed side (default 0.8: ~25% slower when the process had a whole core)
 *   --runs N       runs per side (default 10, as docs/ci.md)
 *
 * The slowdown is real: the kernel throttles the recording process (cgroup v1 or v2 cpu quota, root only). Where
 * no cgroup can be made the detection part is skipped with the reason. Prints one line per compare and a
 * summary; the machine is shared, so the numbers are those of a busy 2-core machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const COMPARES = arg('compares', 20);
const DETECT = arg('detect', 10);
const QUOTA = arg('quota', 0.8);
const RUNS = arg('runs', 10);
const BIN = 'packages/cli/bin/run.js';
const RECORD = ['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '8', '--steps', '40', '--warmup', '8', '--active', '32', '--runs', String(RUNS)];

/** A cpu cgroup limited to QUOTA of one core; returns the file to write a pid into, or the reason there is none. */
function makeSlowGroup(): { procs: string; dispose(): void } | string {
  const v1 = '/sys/fs/cgroup/cpu';
  const v2 = '/sys/fs/cgroup';
  try {
    if (existsSync(join(v1, 'cpu.cfs_quota_us'))) {
      const dir = join(v1, `gsprof-bench-${process.pid}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.cfs_period_us'), '100000');
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(QUOTA * 100000)));
      return { procs: join(dir, 'cgroup.procs'), dispose: () => rmdirSync(dir) };
    }
    if (existsSync(join(v2, 'cgroup.controllers'))) {
      const dir = join(v2, `gsprof-bench-${process.pid}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.max'), `${Math.round(QUOTA * 100000)} 100000`);
      return { procs: join(dir, 'cgroup.procs'), dispose: () => rmdirSync(dir) };
    }
    return 'no cpu cgroup controller at /sys/fs/cgroup';
  } catch (err) {
    return `cannot make a cpu cgroup (${(err as Error).message}); run as root`;
  }
}

function record(out: string, procs?: string): number {
  const t0 = performance.now();
  const cmd = procs ? 'sh' : process.execPath;
  // The shell joins the group, then becomes node: every process of the slowed side (its runs too) is throttled.
  const args = procs ? ['-c', `echo $$ > ${procs} && exec "$0" "$@"`, process.execPath, BIN, ...RECORD, '--out', out] : [BIN, ...RECORD, '--out', out];
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
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
console.log(`bench:compare: ${COMPARES} compares of unchanged code, ${DETECT} with the current side limited to ${QUOTA} of a core, ${RUNS} runs per side`);
try {
  for (let i = 0; i < COMPARES; i++) {
    const base = join(work, `same-${i}-base`);
    const cur = join(work, `same-${i}-cur`);
    const tb = record(base);
    const tc = record(cur);
    const c = compare(base, cur);
    jobSeconds.push(tb + tc + c.seconds);
    if (c.code === 1) falseAlarms++;
    console.log(`unchanged ${i + 1}/${COMPARES}: exit ${c.code}, step time ${((c.ratio - 1) * 100).toFixed(1)}%, ${c.verdict}, p ${c.p === null ? '-' : c.p.toPrecision(2)} (job ${(tb + tc + c.seconds).toFixed(0)} s)`);
  }
  const group = DETECT > 0 ? makeSlowGroup() : 'not asked';
  let caught = 0;
  const ratios: number[] = [];
  if (typeof group === 'string') {
    console.log(`detection skipped: ${group}`);
  } else {
    try {
      for (let i = 0; i < DETECT; i++) {
        const base = join(work, `slow-${i}-base`);
        const cur = join(work, `slow-${i}-cur`);
        record(base);
        record(cur, group.procs);
        const c = compare(base, cur);
        ratios.push(c.ratio);
        if (c.code === 1) caught++;
        console.log(`slowed ${i + 1}/${DETECT}: exit ${c.code}, step time ${((c.ratio - 1) * 100).toFixed(1)}%, ${c.verdict}, p ${c.p === null ? '-' : c.p.toPrecision(2)}`);
      }
    } finally {
      group.dispose();
    }
  }
  const sorted = [...jobSeconds].sort((a, b) => a - b);
  console.log(`false alarms: ${falseAlarms} of ${COMPARES} unchanged compares exited 1`);
  if (ratios.length) {
    const med = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
    console.log(`detection: ${caught} of ${DETECT} slowed compares exited 1 (measured slowdown: median ${((med - 1) * 100).toFixed(1)}%)`);
  }
  if (sorted.length) console.log(`CI job (record both sides + compare): median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} s, max ${sorted[sorted.length - 1]!.toFixed(0)} s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

