/**
 * env-steps/s of sim-core's WebGPU backend for nEnvs 1, 2, 4, ... next to the CPU backend and mujoco-js, plus
 * bytes of state per env and compile time of generic and performanceMode kernels, in one run.
 *
 *   node --conditions=@gsprof/source --import tsx bench/sim-gpu.ts [--envs 1,2,4,...] [--max-envs 32768]
 *        [--seconds 1.5] [--scene franka|anymal_c] [--solver accurate|fast] [--mode-envs 1024]
 *        [--max-step-ms 1000] [--mujoco-max 4096] [--cpu-precision 64] [--no-cpu] [--no-mujoco] [--backend gpu]
 *
 * Scenes and solver settings are bench/gpu-speed.ts's (the seed's speed benchmarks: plane + Panda or ANYmal C,
 * dt 0.01, targets set once). Only one backend can be initialised per process, so every case lives in a
 * child process and this one orchestrates:
 * - a GPU child with generic kernels (the sweep), a GPU child with performanceMode (one nEnvs, --mode-envs),
 *   each with a throwaway cache (XDG_CACHE_HOME and MESA_SHADER_CACHE_DIR in a fresh `mktemp -d`-style folder),
 *   so their first build pays and reports the full compile, Mesa's shader compile included;
 * - a CPU child holding the CPU backend (worker threads 'auto') and mujoco-js (one MjData per env, stepped
 *   round-robin, Franka only, up to --mujoco-max envs).
 * As in bench/sim.ts, the cases of one nEnvs run interleaved (one window each per round, while the others
 * wait) and each reports its median window, so a burst of load from another process hits every case alike.
 * GPU windows step in batches that each end with `await scene.sync()`, so they time the device's work.
 * The sweep stops at the device's buffer limit (the build error states the largest nEnvs that fits) or when
 * the next size's step would take longer than --max-step-ms. The last line is `<scene>-gpu@<N> env-steps/s: X`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as gs from '@gsprof/sim-core';
import { addRobot, settingsOptions, type SpeedScene, type SpeedSettings } from './gpu-speed.js';
import { makeEnvs, matchSimCoreOptions, type Mj } from './mujoco-peer.js';

function parseFlags() {
  try {
    return parseArgs({
      options: {
        envs: { type: 'string' },
        'max-envs': { type: 'string', default: '32768' },
        seconds: { type: 'string', default: '1.5' },
        scene: { type: 'string', default: 'franka' },
        solver: { type: 'string', default: 'accurate' },
        'mode-envs': { type: 'string', default: '1024' },
        'max-step-ms': { type: 'string', default: '1000' },
        'mujoco-max': { type: 'string', default: '4096' },
        'cpu-precision': { type: 'string', default: '64' },
        'no-cpu': { type: 'boolean', default: false },
        'no-mujoco': { type: 'boolean', default: false },
        // Accepted so that `npm run bench:sim -- --backend gpu` can hand its arguments over unchanged.
        backend: { type: 'string', default: 'gpu' },
        // Internal: run as a child (gpu-generic | gpu-performance | cpu).
        peer: { type: 'string' },
      },
    }).values;
  } catch (err) {
    console.error(`sim-gpu: ${(err as Error).message}`);
    process.exit(2);
  }
}
const args = parseFlags();

const sceneName = args.scene as SpeedScene;
const solver = args.solver as SpeedSettings;
const WINDOWS = 3;
const DT = 0.01;
const FRANKA_CTRL = [0, 0, 0, -1, 0, 1, 0, 0.02];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// ---------------------------------------------------------------------------------------------------------
// Child side: one backend per process, driven by messages.

type Request =
  | { op: 'maxEnvs' }
  | { op: 'build'; nEnvs: number; mujoco?: boolean }
  | { op: 'warmup'; ms: number }
  | { op: 'window'; name: string; ms: number }
  | { op: 'drop' }
  | { op: 'exit' };

/** One measurable thing in a child: `window` runs it for about `ms` and returns env-steps per wall second. */
interface PeerCase { name: string; window(ms: number): Promise<number>; close(): Promise<void> }

function newScene(): gs.Scene {
  return new gs.Scene({
    rigidOptions: { dt: DT, ...settingsOptions(solver), resetOnError: true },
    profilingOptions: { showFPS: false },
  });
}

/** A GPU scene's window: batches of steps, each ended by a sync, doubling while a batch is short. */
function gpuCase(scene: gs.Scene, nEnvs: number): PeerCase {
  let batch = 1;
  return {
    name: 'gpu',
    async window(ms) {
      let steps = 0;
      const t0 = performance.now();
      let t = t0;
      do {
        for (let i = 0; i < batch; i++) scene.step();
        await scene.sync();
        steps += batch;
        const now = performance.now();
        if (now - t < ms / 10 && batch < 1024) batch *= 2;
        t = now;
      } while (t - t0 < ms);
      return (steps * nEnvs) / ((t - t0) / 1000);
    },
    close: () => scene.destroy(),
  };
}

/** A synchronous stepper's window (CPU backend, mujoco-js). */
function syncWindow(step: () => void, perCall: number): (ms: number) => Promise<number> {
  return async (ms) => {
    let calls = 0;
    const t0 = performance.now();
    let t = t0;
    do {
      step();
      calls++;
      t = performance.now();
    } while (t - t0 < ms);
    return (calls * perCall) / ((t - t0) / 1000);
  };
}

let mjModule: Mj = null;
let mjDir = 0;

/** The same Panda + floor in MuJoCo, with `opt` set to what sim-core resolved (as bench/sim.ts does). */
async function mujocoCase(nEnvs: number, o: gs.ResolvedOptions): Promise<PeerCase & { bytesPerEnv: number }> {
  const { default: loadMujoco } = await import('mujoco-js');
  mjModule ??= await loadMujoco();
  const mj = mjModule;
  const dir = `/bench${mjDir++}`;
  mj.FS.mkdir(dir);
  const here = dirname(fileURLToPath(import.meta.url));
  mj.FS.writeFile(`${dir}/panda.xml`, readFileSync(join(here, '../packages/sim-core/assets/xml/franka_emika_panda/panda.xml'), 'utf8'));
  // A 256K arena per MjData so that thousands of them fit MuJoCo's 2 GiB WASM heap.
  mj.FS.writeFile(`${dir}/bench.xml`,
    '<mujoco><include file="panda.xml"/><size memory="256K"/><worldbody><geom name="floor" type="plane" size="0 0 0.05"/></worldbody></mujoco>');
  const m = mj.MjModel.loadFromXML(`${dir}/bench.xml`);
  if (!m) throw new Error('MuJoCo could not load the benchmark scene');
  matchSimCoreOptions(mj, m, o);
  const datas = makeEnvs(mj, m, nEnvs, FRANKA_CTRL);
  return {
    name: 'mujoco',
    bytesPerEnv: Number(datas[0].narena) + Number(datas[0].nbuffer),
    window: syncWindow(() => { for (const d of datas) mj.mj_step(m, d); }, nEnvs),
    async close() {
      for (const d of datas) d.delete();
      m.delete();
    },
  };
}

async function runPeer(kind: string): Promise<void> {
  const send = (msg: unknown): void => { process.send!(msg); };
  const backend = kind === 'cpu' ? 'cpu' : 'gpu';
  const precision = backend === 'cpu' ? (args['cpu-precision'] as '32' | '64') : '32';
  await gs.init({ backend, precision, performanceMode: kind === 'gpu-performance', loggingLevel: 'warning' });
  const dev = gs.device!;
  send({
    ready: true, device: dev.name, software: dev.software ?? false, threads: dev.threads ?? null,
    maxStorageBufferBindingSize: dev.limits?.maxStorageBufferBindingSize ?? null, maxBufferSize: dev.limits?.maxBufferSize ?? null,
  });
  let cases: PeerCase[] = [];
  process.on('message', (req: Request) => {
    void (async () => {
      try {
        switch (req.op) {
          case 'maxEnvs': {
            // The GPU backend checks nEnvs against the buffer limits before it allocates or compiles anything.
            const scene = newScene();
            addRobot(scene, sceneName);
            try {
              await scene.build({ nEnvs: 1 << 30 });
              await scene.destroy();
              send({ maxEnvs: 1 << 30 });
            } catch (err) {
              const msg = (err as Error).message;
              const m = /largest nEnvs that fits is (\d+)/.exec(msg);
              if (!m) throw err;
              send({ maxEnvs: Number(m[1]), message: msg });
            }
            break;
          }
          case 'build': {
            const scene = newScene();
            const setTargets = addRobot(scene, sceneName);
            const t0 = performance.now();
            await scene.build({ nEnvs: req.nEnvs });
            const buildMs = performance.now() - t0;
            setTargets();
            const sim = scene.requireSim() as unknown as { sim?: { compileMs?: Map<string, number> } };
            const compileMs = sim.sim?.compileMs ? [...sim.sim.compileMs.values()].reduce((a, b) => a + b, 0) : null;
            const t1 = performance.now();
            scene.step();
            await scene.sync();
            const firstStepMs = performance.now() - t1;
            const stepper = backend === 'gpu' ? gpuCase(scene, req.nEnvs) : {
              name: 'cpu', window: syncWindow(() => scene.step(), req.nEnvs), close: () => scene.destroy(),
            };
            cases = [stepper];
            let mujocoBytes: number | null = null;
            if (req.mujoco) {
              const mjCase = await mujocoCase(req.nEnvs, scene.options!);
              mujocoBytes = mjCase.bytesPerEnv;
              cases.push(mjCase);
            }
            send({
              buildMs, compileMs, firstStepMs, bytesPerEnv: scene.bytesPerEnv, mujocoBytes,
              description: scene.requireSim().description, options: scene.options,
            });
            break;
          }
          case 'warmup': {
            for (const c of cases) await c.window(req.ms);
            send({ ok: true });
            break;
          }
          case 'window': {
            const c = cases.find((x) => x.name === req.name);
            if (!c) throw new Error(`no case '${req.name}' built`);
            send({ rate: await c.window(req.ms) });
            break;
          }
          case 'drop': {
            for (const c of cases) await c.close();
            cases = [];
            send({ ok: true });
            break;
          }
          case 'exit': {
            await gs.destroy();
            send({ ok: true });
            process.exit(0);
          }
        }
      } catch (err) {
        send({ error: (err as Error).message.split('\n')[0] });
      }
    })();
  });
}

// ---------------------------------------------------------------------------------------------------------
// Parent side: the orchestration and the report.

// biome-ignore lint/suspicious/noExplicitAny: each reply kind has its own fields, checked where it is read
type Reply = Record<string, any>;

class Peer {
  private pending: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  private readonly child: ChildProcess;
  private dead: string | null = null;
  /** The child's first message: its device. */
  readonly ready: Promise<Reply>;

  constructor(readonly kind: string, env: NodeJS.ProcessEnv) {
    this.child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--peer', kind], {
      env, execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    // Dawn prints its limit adjustments on stderr; keep every other line.
    this.child.stderr!.on('data', (b: Buffer) => {
      for (const line of b.toString().split('\n')) {
        if (line.trim() && !/artificially reduced/.test(line)) process.stderr.write(`[${kind}] ${line}\n`);
      }
    });
    this.child.on('exit', (code) => {
      this.dead = `the ${kind} child exited (code ${code})`;
      this.pending?.reject(new Error(this.dead));
      this.pending = null;
    });
    this.child.on('message', (m: Reply) => {
      const p = this.pending;
      this.pending = null;
      p?.resolve(m);
    });
    this.ready = new Promise((resolve, reject) => { this.pending = { resolve, reject }; });
  }

  async ask(req: Request): Promise<Reply> {
    if (this.dead) throw new Error(this.dead);
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(req);
    });
    if (reply.error) throw new Error(`${this.kind}: ${reply.error}`);
    return reply;
  }

  async close(): Promise<void> {
    if (this.dead) return;
    try {
      await this.ask({ op: 'exit' });
    } catch { /* already gone */ }
  }
}

/** A child with its own throwaway cache, so its first build pays (and reports) the whole compile. */
function freshCacheEnv(dirs: string[]): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-bench-cache-'));
  dirs.push(dir);
  return { ...process.env, XDG_CACHE_HOME: dir, MESA_SHADER_CACHE_DIR: join(dir, 'mesa_shader_cache') };
}

interface Built { peer: Peer; name: string; label: string; rates: number[] }

async function main(): Promise<void> {
  const fail = (msg: string): never => {
    console.error(`sim-gpu: ${msg}`);
    process.exit(2);
  };
  if (sceneName !== 'franka' && sceneName !== 'anymal_c') fail(`--scene must be franka or anymal_c, got '${args.scene}'`);
  if (solver !== 'accurate' && solver !== 'fast') fail(`--solver must be accurate or fast, got '${args.solver}'`);
  if (args['cpu-precision'] !== '32' && args['cpu-precision'] !== '64') fail(`--cpu-precision must be 32 or 64, got '${args['cpu-precision']}'`);
  if (args.backend !== 'gpu') fail(`this benchmark measures the 'gpu' backend (with the CPU backend beside it), got --backend ${args.backend}`);
  const num = (name: string, min: number): number => {
    const v = Number(args[name as keyof typeof args]);
    if (!Number.isFinite(v) || v < min) fail(`--${name} must be a number >= ${min}, got '${String(args[name as keyof typeof args])}'`);
    return v;
  };
  const maxEnvsArg = num('max-envs', 1);
  const seconds = num('seconds', 0.03);
  const modeEnvs = num('mode-envs', 1);
  const maxStepMs = num('max-step-ms', 1);
  const mujocoMax = num('mujoco-max', 0);
  let sizes: number[] = [];
  if (args.envs) {
    sizes = args.envs.split(',').map(Number);
    if (sizes.some((n) => !Number.isInteger(n) || n < 1)) fail(`--envs must be positive integers, got '${args.envs}'`);
  } else {
    for (let n = 1; n <= maxEnvsArg; n *= 2) sizes.push(n);
  }
  const withCpu = !args['no-cpu'];
  const withMujoco = !args['no-mujoco'] && sceneName === 'franka';
  const windowMs = (seconds / WINDOWS) * 1000;
  const cacheDirs: string[] = [];
  const started = performance.now();

  const generic = new Peer('gpu-generic', freshCacheEnv(cacheDirs));
  const cpuPeer = withCpu || withMujoco ? new Peer('cpu', process.env) : null;
  let perf: Peer | null = null;
  const closeAll = async (): Promise<void> => {
    await Promise.all([generic.close(), cpuPeer?.close(), perf?.close()]);
    for (const d of cacheDirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    const dev = await generic.ready;
    const cpuInfo = cpuPeer ? await cpuPeer.ready : null;
    const o = settingsOptions(solver);
    console.log(`sim-core WebGPU vs CPU backend vs mujoco-js 0.0.7: ${sceneName}, ${solver} solver settings ` +
      `(${o.constraintSolver}${o.iterations ? `, ${o.iterations} iterations` : ''}, self-collision ${o.enableSelfCollision ? 'on' : 'off'}), dt ${DT}`);
    console.log(`adapter: ${dev.device}${dev.software ? ' (software)' : ''}; maxStorageBufferBindingSize ${dev.maxStorageBufferBindingSize}, ` +
      `maxBufferSize ${dev.maxBufferSize}`);
    console.log(`machine: ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}; ` +
      `CPU backend f${args['cpu-precision']} (${cpuInfo?.threads ?? '-'} threads max); ` +
      `${WINDOWS} interleaved windows of ${Math.round(windowMs)} ms per case after one warm-up window (median)`);

    const fit = await generic.ask({ op: 'maxEnvs' });
    const maxFit = fit.maxEnvs as number;
    console.error(`  largest nEnvs that fits the device's buffer limits: ${maxFit}`);

    const rows: string[][] = [];
    const compileRows: string[][] = [];
    let gpuBytes = 0;
    let cpuBytes = 0;
    let mjBytes = 0;
    let cpuStopped = !withCpu;
    let stopNote = '';
    let last = null as { n: number; rate: number } | null;
    let modeResult = null as { generic: number; perf: number } | null;
    let genericBuilds = 0;

    const measureAt = async (n: number, withPerf: boolean, sweep: boolean): Promise<Map<string, number>> => {
      const cases: Built[] = [];
      const g = await generic.ask({ op: 'build', nEnvs: n });
      gpuBytes = g.bytesPerEnv;
      genericBuilds++;
      if (genericBuilds <= 2) {
        compileRows.push([genericBuilds === 1 ? 'generic, fresh cache' : 'generic, same process, next nEnvs', String(n),
          g.buildMs.toFixed(0), g.compileMs.toFixed(0), g.firstStepMs.toFixed(0)]);
      }
      cases.push({ peer: generic, name: 'gpu', label: 'gpu', rates: [] });
      if (withPerf) {
        perf ??= new Peer('gpu-performance', freshCacheEnv(cacheDirs));
        await perf.ready;
        const p = await perf.ask({ op: 'build', nEnvs: n });
        compileRows.push(['performanceMode, fresh cache', String(n), p.buildMs.toFixed(0), p.compileMs.toFixed(0), p.firstStepMs.toFixed(0)]);
        cases.push({ peer: perf, name: 'gpu', label: 'gpu-performance', rates: [] });
      }
      const cpuHere = sweep && !cpuStopped;
      const mjHere = sweep && withMujoco && n <= mujocoMax;
      if (cpuPeer && (cpuHere || mjHere)) {
        const c = await cpuPeer.ask({ op: 'build', nEnvs: n, mujoco: mjHere });
        cpuBytes = c.bytesPerEnv;
        if (c.mujocoBytes) mjBytes = c.mujocoBytes;
        if (cpuHere) cases.push({ peer: cpuPeer, name: 'cpu', label: 'cpu', rates: [] });
        if (mjHere) cases.push({ peer: cpuPeer, name: 'mujoco', label: 'mujoco', rates: [] });
      }
      for (const peer of new Set(cases.map((c) => c.peer))) await peer.ask({ op: 'warmup', ms: windowMs });
      for (let r = 0; r < WINDOWS; r++) {
        for (const c of cases) c.rates.push((await c.peer.ask({ op: 'window', name: c.name, ms: windowMs })).rate);
      }
      for (const peer of new Set(cases.map((c) => c.peer))) await peer.ask({ op: 'drop' });
      const out = new Map<string, number>();
      for (const c of cases) out.set(c.label, median(c.rates));
      console.error(`  nEnvs ${n}: ${cases.map((c) => `${c.label} ${c.rates.map((x) => Math.round(x)).join(' / ')}`).join('; ')}`);
      return out;
    };

    const fmt = (x: number | undefined): string => (x === undefined ? '-' : Math.round(x).toLocaleString('en-US'));
    const ratio = (a: number | undefined, b: number | undefined): string => (a && b ? `${(a / b).toFixed(a / b < 0.1 ? 3 : 2)}x` : '-');
    /** Measures one nEnvs of the sweep; returns the GPU's ms per step. */
    const sweepRow = async (n: number): Promise<number> => {
      const withPerf = n === modeEnvs && modeResult === null;
      const r = await measureAt(n, withPerf, true);
      const gpu = r.get('gpu')!;
      if (withPerf) modeResult = { generic: gpu, perf: r.get('gpu-performance')! };
      const cpu = r.get('cpu');
      const mj = r.get('mujoco');
      const stepMs = (1000 * n) / gpu;
      rows.push([String(n), fmt(gpu), stepMs.toFixed(2), fmt(cpu), fmt(mj), ratio(gpu, cpu), ratio(gpu, mj)]);
      last = { n, rate: gpu };
      // The next size doubles the work per step; the CPU drops out before one step outgrows the budget.
      if (cpu !== undefined && (2000 * n) / cpu > maxStepMs) cpuStopped = true;
      return stepMs;
    };
    for (const [i, n] of sizes.entries()) {
      if (n > maxFit) {
        const why = /\(([^)]*)\)/.exec(String(fit.message))?.[1] ?? '';
        stopNote = `stopped at nEnvs ${n}: it does not fit the device's buffer limits (${why}; the largest nEnvs that fits is ${maxFit})`;
        // The largest size that fits is the last row, when the doubling skipped over it.
        if (!args.envs && (last === null || last.n < maxFit)) await sweepRow(maxFit);
        break;
      }
      const stepMs = await sweepRow(n);
      const next = sizes[i + 1];
      if (next !== undefined && stepMs * (next / n) > maxStepMs) {
        stopNote = `stopped before nEnvs ${next}: a GPU step would take about ${(stepMs * (next / n)).toFixed(0)} ms (> --max-step-ms ${maxStepMs})`;
        break;
      }
    }
    if (modeResult === null && modeEnvs <= maxFit) {
      const r = await measureAt(modeEnvs, true, false);
      modeResult = { generic: r.get('gpu')!, perf: r.get('gpu-performance')! };
    }

    const header = ['nEnvs', 'gpu env-steps/s', 'gpu ms/step', 'cpu env-steps/s', 'mujoco-js env-steps/s', 'gpu/cpu', 'gpu/mujoco'];
    const table = (head: string[], body: string[][]): void => {
      const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
      const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
      console.log(line(head));
      console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
      for (const row of body) console.log(line(row));
    };
    console.log('');
    table(header, rows);
    if (stopNote) console.log(stopNote);
    console.log(`largest nEnvs that fits this device's buffer limits: ${maxFit}`);
    console.log('');
    table(['kernels', 'nEnvs', 'build ms', 'sum of kernel compile ms', 'first step + sync ms'], compileRows);
    console.log('build = scene.build (WGSL generation, shader modules, pipelines); the first step includes any compile the driver defers to first use');
    if (modeResult) {
      console.log(`performanceMode at ${modeEnvs} envs: ${fmt(modeResult.perf)} env-steps/s vs generic ${fmt(modeResult.generic)} ` +
        `(${ratio(modeResult.perf, modeResult.generic)})`);
    }
    console.log(`state per env: gpu ${gpuBytes} bytes (f32)` +
      (cpuBytes ? `; cpu backend ${Math.round(cpuBytes)} bytes (f${args['cpu-precision']})` : '') +
      (mjBytes ? `; mujoco-js MjData ${mjBytes} bytes (arena + buffer)` : ''));
    console.log(`total time ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (last) console.log(`${sceneName}-gpu@${last.n} env-steps/s: ${Math.round(last.rate)}`);
  } catch (err) {
    console.error(`sim-gpu: ${(err as Error).message}`);
    process.exitCode = 1;
  } finally {
    await closeAll();
  }
}

if (args.peer) await runPeer(args.peer);
else await main();
