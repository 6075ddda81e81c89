/**
 * Cost of the CPU pipeline's stages on the Menagerie Franka (main thread), in CPU ns per env-step, for
 * several batch sizes. Usage:
 *   node --conditions=@gsprof/source --import tsx bench/stages.ts [slice ms, default 30]
 * The machine may be shared, so every figure is this process's CPU time, and the minimum over 15 slices:
 * the whole step (stepCpu), then each stage run alone on the same state (integrate keeps advancing it,
 * which does not change its cost).
 */
import { loadMJCF } from '../packages/sim-core/src/loaders/mjcf.js';
import { setConst } from '../packages/sim-core/src/physics/setconst.js';
import { makeData } from '../packages/sim-core/src/data/make-data.js';
import { CPU_STAGES, stepCpu } from '../packages/sim-core/src/cpu/step.js';
import type { Precision } from '../packages/sim-core/src/data/data.js';
import { sharedPath } from '../test/support/shared.js';

const sliceMs = Number(process.argv[2] ?? 30);
const model = setConst(loadMJCF(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml')).model);
model.opt.timestep = 0.01;
const target = [0, 0, 0, -1, 0, 1, 0, 0.02];
const SMOOTH = ['kinematics', 'com', 'crb', 'factor_m', 'passive', 'rne', 'actuation', 'smooth_acc', 'integrate'];

/** Minimum CPU ns per call of fn over 15 slices. */
function cpuNsPerCall(fn: () => void): number {
  let best = Infinity;
  for (let t = 0; t < 15; t++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let calls = 0;
    while (performance.now() - t0 < sliceMs) { fn(); calls++; }
    const c = process.cpuUsage(c0);
    best = Math.min(best, ((c.user + c.system) * 1e3) / calls);
  }
  return best;
}

function run(nEnvs: number, precision: Precision): void {
  const d = makeData(model, nEnvs, precision);
  for (let u = 0; u < model.nu; u++) d.ctrl.fill(target[u]!, u * nEnvs, (u + 1) * nEnvs);
  const warm = performance.now();
  while (performance.now() - warm < 1000) stepCpu(model, d, 0, nEnvs);
  const step = cpuNsPerCall(() => stepCpu(model, d, 0, nEnvs)) / nEnvs;
  const cells = SMOOTH.map((name) => {
    const stage = CPU_STAGES.find((s) => s.name === name)!;
    return (cpuNsPerCall(() => stage.run(model, d, 0, nEnvs)) / nEnvs).toFixed(0);
  });
  const smooth = cells.reduce((a, b) => a + Number(b), 0);
  console.log(`| ${nEnvs} | f${precision} | ${(1e6 / step).toFixed(1)}k | ${step.toFixed(0)} | ${smooth} | ${cells.join(' | ')} |`);
}

console.log(`| nEnvs | precision | env-steps/s | whole step | smooth stages | ${SMOOTH.join(' | ')} |`);
console.log(`|${'---|'.repeat(5 + SMOOTH.length)}`);
for (const n of [1, 64, 512, 4096]) run(n, '64');
run(4096, '32');
