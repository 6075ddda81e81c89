/**
 * Per-stage cost of the CPU pipeline on the Menagerie Franka (main thread, f64 and f32), in ns per
 * env-step, for several batch sizes. Usage:
 *   node --conditions=@gsprof/source --import tsx bench/stages.ts [seconds per size, default 1]
 */
import { loadMJCF } from '../packages/sim-core/src/loaders/mjcf.js';
import { setConst } from '../packages/sim-core/src/physics/setconst.js';
import { makeData } from '../packages/sim-core/src/data/make-data.js';
import { CPU_STAGES, stepCpu } from '../packages/sim-core/src/cpu/step.js';
import type { Precision } from '../packages/sim-core/src/data/data.js';
import { sharedPath } from '../test/support/shared.js';

const seconds = Number(process.argv[2] ?? 1);
const model = setConst(loadMJCF(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml')).model);
model.opt.timestep = 0.01;
const target = [0, 0, 0, -1, 0, 1, 0, 0.02];

function run(nEnvs: number, precision: Precision): void {
  const d = makeData(model, nEnvs, precision);
  for (let u = 0; u < model.nu; u++) d.ctrl.fill(target[u]!, u * nEnvs, (u + 1) * nEnvs);
  const times = new Float64Array(CPU_STAGES.length);
  // warm-up, then time each stage
  const warm = performance.now();
  while (performance.now() - warm < 300) stepCpu(model, d, 0, nEnvs);
  let steps = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    for (let s = 0; s < CPU_STAGES.length; s++) {
      const a = process.hrtime.bigint();
      CPU_STAGES[s]!.run(model, d, 0, nEnvs);
      times[s] = times[s]! + Number(process.hrtime.bigint() - a);
    }
    steps++;
  }
  // the machine may be shared: the rate uses this process's CPU time, and the per-stage split scales the
  // wall-clock shares of each stage to it
  const cpu = process.cpuUsage(cpu0);
  const cpuNs = (cpu.user + cpu.system) * 1e3;
  const total = times.reduce((a, b) => a + b, 0);
  const scale = cpuNs / total;
  const per = (ns: number): string => ((ns * scale) / (steps * nEnvs)).toFixed(0).padStart(6);
  const rate = (steps * nEnvs) / (cpuNs / 1e9);
  console.log(`nEnvs ${String(nEnvs).padStart(5)} f${precision}: ${(rate / 1e3).toFixed(1).padStart(7)}k env-steps/s | ` +
    CPU_STAGES.map((s, i) => `${s.name} ${per(times[i]!)}`).join(' |'));
}

console.log('CPU ns per env-step by stage (main thread)');
for (const precision of ['64', '32'] as const) for (const n of [1, 64, 512, 4096]) run(n, precision);
