/**
 * env-steps/s of sim-core next to MuJoCo (mujoco-js, WebAssembly) on the same Franka MJCF.
 *
 *   npm run bench:sim [-- --backend cpu|gpu|auto] [--envs 1,64,512,4096] [--seconds 3] [--warmup 2] [--precision 32|64]
 *
 * Both load the bundled xml/franka_emika_panda/scene.xml (Panda + floor + the Menagerie MJX <option>), at
 * dt 0.01 with MuJoCo's solver options set to exactly what sim-core resolved (iterations, line search,
 * tolerances, integrator, solver, cone). Both hold the target [0,0,0,-1,0,1,0,0.02,0.02]: sim-core through
 * controlDofsPosition on every env, MuJoCo through ctrl [0,0,0,-1,0,1,0,0.02] (the same servo, PROVENANCE.md).
 * MuJoCo steps one MjData per env round-robin on this thread (REFERENCE §8), each with a 256K arena.
 * Every case warms up by time, then counts steps over a wall-clock window.
 * On the CPU backend each nEnvs is also run on one thread, to show what the worker threads give.
 * The last line is `franka@4096 ratio: X` (sim-core / mujoco-js at the largest nEnvs).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import loadMujoco from 'mujoco-js';
import * as gs from '@gsprof/sim-core';
import { makeEnvs, matchSimCoreOptions, type Mj } from './mujoco-peer.js';

// The WebGPU sweep (nEnvs doubling to the device limit, both kernel modes, compile times) is its own script,
// since one process can initialise only one backend; `npm run bench:sim -- --backend gpu` runs it.
const argv = process.argv.slice(2);
const gpuAt = argv.findIndex((a, i) => a === '--backend=gpu' || (a === '--backend' && argv[i + 1] === 'gpu'));
if (gpuAt >= 0) {
  const { spawnSync } = await import('node:child_process');
  const script = join(dirname(new URL(import.meta.url).pathname), 'sim-gpu.ts');
  const r = spawnSync(process.execPath, [...process.execArgv, script, ...argv], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'cpu' },
    envs: { type: 'string', default: '1,64,512,4096' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    precision: { type: 'string', default: '64' },
    'no-mujoco': { type: 'boolean', default: false },
  },
});
const backend = args.backend as 'cpu' | 'gpu' | 'auto';
const envCounts = args.envs.split(',').map(Number);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const precision = args.precision as '32' | '64';
const SCENE = 'xml/franka_emika_panda/scene.xml';
const TARGET = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02];
const CTRL = [0, 0, 0, -1, 0, 1, 0, 0.02];
const DT = 0.01;

/**
 * A case under measurement: `step` advances `perCall` env-steps. The machine is shared, so cases of one nEnvs
 * run interleaved, one window each per round, and each reports its median window: a burst of load from
 * another process then hits every case alike instead of whichever case happened to be running.
 */
interface Case {
  name: string; step: () => void; perCall: number;
  /** Per window: env-steps per wall second, and cores this process used (CPU time / wall time). */
  rates: number[]; cores: number[];
}

function warmUp(c: Case): void {
  const t0 = performance.now();
  while (performance.now() - t0 < warmup * 1000) c.step();
}

function window(c: Case, ms: number): void {
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    c.step();
    calls++;
    t = performance.now();
  }
  const cpu = process.cpuUsage(cpu0);
  c.rates.push((calls * c.perCall) / ((t - t0) / 1000));
  c.cores.push((cpu.user + cpu.system) / 1000 / (t - t0));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface SimCoreCase extends Case { description: string; bytesPerEnv: number; options: gs.ResolvedOptions; scene: gs.Scene }

async function simCore(nEnvs: number, cpuThreads: number | 'auto'): Promise<SimCoreCase> {
  const scene = new gs.Scene({ rigidOptions: { dt: DT }, profilingOptions: { showFPS: false } });
  const franka = scene.addEntity(gs.morphs.MJCF({ file: SCENE }));
  await scene.build({ nEnvs, cpuThreads });
  franka.controlDofsPosition(TARGET);
  return {
    name: `sim-core ${cpuThreads}`, step: () => scene.step(), perCall: Math.max(1, nEnvs), rates: [], cores: [],
    description: scene.requireSim().description, bytesPerEnv: scene.bytesPerEnv, options: { ...scene.options! }, scene,
  };
}

let mjModule: Mj = null;
let mjDir = 0;

async function mujoco(nEnvs: number, o: gs.ResolvedOptions): Promise<Case & { bytesPerEnv: number; close(): void }> {
  mjModule ??= await loadMujoco();
  const mj = mjModule;
  const dir = `/bench${mjDir++}`;
  mj.FS.mkdir(dir);
  const sceneFile = join(dirname(new URL(import.meta.url).pathname), '../packages/sim-core/assets', SCENE);
  for (const name of ['scene.xml', 'panda.xml']) {
    mj.FS.writeFile(`${dir}/${name}`, readFileSync(join(dirname(sceneFile), name), 'utf8'));
  }
  // The same files, with a 256K arena per MjData so that 4096 of them fit MuJoCo's 2 GiB WASM heap.
  mj.FS.writeFile(`${dir}/bench.xml`, '<mujoco><include file="scene.xml"/><size memory="256K"/></mujoco>');
  const m = mj.MjModel.loadFromXML(`${dir}/bench.xml`);
  if (!m) throw new Error('MuJoCo could not load the benchmark scene');
  matchSimCoreOptions(mj, m, o);
  const datas = makeEnvs(mj, m, nEnvs, CTRL);
  const bytesPerEnv = Number(datas[0].narena) + Number(datas[0].nbuffer);
  const close = (): void => {
    // MuJoCo silently resets an env that blows up (REFERENCE §8): say so if it happened.
    let resets = 0;
    try {
      for (const d of datas) resets += Number(d.warning[mj.mjtWarning.mjWARN_BADQACC.value]?.number ?? 0);
    } catch { /* warning stats not exposed by this build */ }
    if (resets > 0) console.warn(`mujoco-js: ${resets} bad-qacc resets at nEnvs ${nEnvs}`);
    for (const d of datas) d.delete();
    m.delete();
  };
  return {
    name: 'mujoco-js', perCall: nEnvs, rates: [], cores: [], bytesPerEnv, close,
    step: () => { for (const d of datas) mj.mj_step(m, d); },
  };
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const rows: string[][] = [];
const header = [
  'nEnvs', 'sim-core env-steps/s', 'threads', 'cores used', 'sim-core 1 thread', 'thread speedup', 'mujoco-js env-steps/s', 'ratio',
];
let lastRatio = NaN;
let lastEnvs = 0;
let stateBytes = 0;
let mjBytes = 0;

console.log(`sim-core ${backend} f${precision} vs mujoco-js 0.0.7 (MuJoCo 3.3.8 WASM), Franka ${SCENE}, dt ${DT}`);
console.log(`machine: ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}; ` +
  `warm-up ${warmup} s, then ${Math.max(1, Math.round(seconds))} interleaved 1 s windows per case (median)`);
try {
  await gs.init({ backend, precision, loggingLevel: 'warning' });
} catch (err) {
  console.error(`bench:sim: ${(err as Error).message}`);
  process.exit(1);
}
const rounds = Math.max(1, Math.round(seconds));
for (const n of envCounts) {
  const best = await simCore(n, 'auto');
  stateBytes = best.bytesPerEnv;
  const single = backend === 'cpu' && best.description !== 'cpu, 1 thread' ? await simCore(n, 1) : null;
  const mj = args['no-mujoco'] ? null : await mujoco(n, best.options);
  if (mj) mjBytes = mj.bytesPerEnv;
  const cases: Case[] = [best, ...(single ? [single] : []), ...(mj ? [mj] : [])];
  for (const c of cases) warmUp(c);
  for (let r = 0; r < rounds; r++) for (const c of cases) window(c, (seconds / rounds) * 1000);
  await best.scene.sync();
  const bestRate = median(best.rates);
  const singleRate = single ? median(single.rates) : NaN;
  const mjRate = mj ? median(mj.rates) : NaN;
  await best.scene.destroy();
  await single?.scene.destroy();
  mj?.close();
  const ratio = bestRate / mjRate;
  lastRatio = ratio;
  lastEnvs = n;
  rows.push([
    String(n), fmt(bestRate), best.description.replace(/^cpu, /, ''), median(best.cores).toFixed(2),
    single ? fmt(singleRate) : '-', single ? `${(bestRate / singleRate).toFixed(2)}x` : '-',
    mj ? fmt(mjRate) : '-', mj ? ratio.toFixed(2) : '-',
  ]);
  console.error(`  nEnvs ${n}: ${cases.map((c) => `${c.name} ${c.rates.map(fmt).join(' / ')} (cores ${c.cores.map((x) => x.toFixed(2)).join(' / ')})`).join('; ')}`);
}
await gs.destroy();

const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
console.log('cores used: CPU time of this process (all its threads) / wall time, median window; below the thread count the OS gave it less than that');
console.log(`state per env: sim-core ${Math.round(stateBytes)} bytes (f${precision})` +
  (mjBytes > 0 ? `; mujoco-js MjData ${mjBytes} bytes (arena + buffer)` : ''));
console.log(`franka@${lastEnvs} ratio: ${lastRatio.toFixed(2)}`);
