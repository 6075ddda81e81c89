/**
 * What sim-core's per-step physics counters and per-env events cost the recorded step time (issue 30): the
 * record defaults (Franka, 1024 envs) are stepped under profile() with sim-core's tracer installed, alternating
 * step by step the profiler's full tracer (counters and events on) with the same tracer minus counter() and
 * instant() (what `record --no-physics-counters` installs), on the same scene. Each step is timed from
 * scene.step() to the end of its sync (the GPU's completed work; on the GPU, counters on, the step also runs the
 * physics_counters reduction and reads its record back). Reports the median over rounds of each mode's mean step
 * time and their ratio, and on the CPU, measured apart, the time the counter path itself takes per step
 * (stepTotals over the scene's timers plus the counter samples; the GPU's reduction runs on the device).
 *
 *   node --conditions=@gsprof/source --import tsx bench/physics-counters.ts [--backend cpu|gpu] [--n-envs 1024]
 *        [--steps 40] [--rounds 5]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { profile } from '@gsprof/profiler';
import * as gs from '@gsprof/sim-core';

const OPTIONS = {
  backend: { type: 'string', default: 'cpu' },
  'n-envs': { type: 'string', default: '1024' },
  steps: { type: 'string', default: '40' },
  rounds: { type: 'string', default: '5' },
} as const;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function main(argv: string[]): Promise<{ backend: string; onMs: number; offMs: number; ratio: number; counterPathUs: number | null }> {
  const { values } = parseArgs({ args: argv, options: OPTIONS });
  const backend = values.backend as 'cpu' | 'gpu';
  const nEnvs = Number(values['n-envs']), steps = Number(values.steps), rounds = Number(values.rounds);
  await gs.init({ backend, loggingLevel: 'warning' });
  try {
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.Plane());
    const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
    await scene.build({ nEnvs });
    franka.controlDofsPosition(gs.tile(gs.tensor([0, 0, 0, -1, 0, 1, 0, 0.02, 0.02]), [nEnvs, 1]));
    scene.step();
    await scene.sync();
    const prof = profile({ activities: ['cpu'] });
    const full = prof.tracer;
    const spansOnly = { begin: full.begin, end: full.end, threadSpan: full.threadSpan };
    const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
    await prof.start();
    try {
      // Modes alternate step by step (and which goes first alternates by round), so that the machine's load,
      // which drifts over seconds, hits both alike; each round gives each mode's mean step time.
      for (let r = 0; r < rounds; r++) {
        const sum = { on: 0, off: 0 };
        for (let s = 0; s < 2 * steps; s++) {
          const mode: 'on' | 'off' = (s + r) % 2 === 0 ? 'on' : 'off';
          gs.setTracer(mode === 'on' ? full : spansOnly);
          const t0 = performance.now();
          scene.step();
          await scene.sync();
          sum[mode] += performance.now() - t0;
          void prof.step();
        }
        times.on.push(sum.on / steps);
        times.off.push(sum.off / steps);
      }
    } finally {
      gs.setTracer(null);
      await prof.stop();
    }
    // The counter path alone, on the CPU: the step figures from the timers and the seven samples, as scene.step()
    // runs it. (On the GPU the figures come from the device's reduction: its time is in the on/off ratio.)
    const counterPathUs = backend === 'cpu' ? await timeCounterPath(scene, nEnvs) : null;
    await scene.destroy();
    const onMs = median(times.on), offMs = median(times.off);
    return { backend, onMs, offMs, ratio: onMs / offMs, counterPathUs };
  } finally {
    await gs.destroy();
  }
}

/** Microseconds per step of the CPU's counter path: stepTotals over the timers and the counter samples. */
async function timeCounterPath(scene: gs.Scene, nEnvs: number): Promise<number> {
  const timers = scene.rigidSolver.constraintSolver.timers.data as Float64Array;
  const sink = profile({ activities: ['cpu'] });
  await sink.start();
  const reps = 2000;
  const c0 = performance.now();
  for (let i = 0; i < reps; i++) {
    const t = gs.stepTotals(timers, nEnvs);
    for (const [k, name] of Object.entries(gs.PHYSICS_COUNTERS)) sink.tracer.counter(name, 'count', (t as unknown as Record<string, number>)[k] ?? 0);
  }
  const us = ((performance.now() - c0) / reps) * 1e3;
  await sink.stop();
  return us;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const r = await main(argv);
  const { values } = parseArgs({ args: argv, options: OPTIONS });
  console.log(`Physics counters, Franka ${values['n-envs']} envs on ${r.backend}, ${values.rounds} rounds of ${values.steps} steps per mode:`);
  console.log(`| backend | step, counters on | step, --no-physics-counters | on / off | counter path per step |`);
  console.log('|---|---|---|---|---|');
  const path = r.counterPathUs === null ? 'on the device (physics_counters)'
    : `${r.counterPathUs.toFixed(1)} us (${((r.counterPathUs / 1e3 / r.offMs) * 100).toFixed(3)}% of a step)`;
  console.log(`| ${r.backend} | ${r.onMs.toFixed(2)} ms | ${r.offMs.toFixed(2)} ms | ${r.ratio.toFixed(3)} | ${path} |`);
}
