/**
 * One speed benchmark run as Genesis' examples/speed_benchmark/{franka,anymal_c}.py do it, with a choice of
 * solver settings, printing env-steps/s. bench/gpu-h200.sh calls it once per (scene, settings).
 *
 *   node --conditions=@gsprof/source --import tsx bench/gpu-speed.ts --scene franka|anymal_c --settings fast|accurate
 *        [--n-envs 30000] [--steps 1000] [--max-seconds 40] [--budget-seconds S] [--backend gpu] [--no-performance-mode]
 *        [--json FILE]
 *
 * Scenes (REFERENCE §1 "Speed benchmarks"): franka = plane + bundled xml/franka_emika_panda/panda.xml, dt 0.01,
 * target [0,0,0,-1,0,1,0,0.02,0.02] set once on every env; anymal_c = plane + bundled ANYmal C URDF at z 0.8,
 * dt 0.01, kp 1000 on the 12 leg joints, zero position targets set once.
 * Settings: fast = the headline settings (CG, 100 iterations, no self-collision); accurate = Newton with the
 * files' tolerances (neither file has an <option>, so sim-core's defaults: 50 iterations, tol 1e-6, line
 * search 50 / 1e-2) and self-collision on.
 * Timing: build (WGSL generation and pipeline creation), then the first step with `await scene.sync()` (where a
 * driver that compiles lazily pays its compile), a short warm-up, then `--steps` steps (stopping early once
 * `--max-seconds` of stepping have passed), each batch of steps ended by `await scene.sync()`, so the time
 * covers the work the GPU did, not just the submits.
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as gs from '@gsprof/sim-core';

const LEG_JOINTS = ['LF_HAA', 'LF_HFE', 'LF_KFE', 'RF_HAA', 'RF_HFE', 'RF_KFE', 'LH_HAA', 'LH_HFE', 'LH_KFE', 'RH_HAA', 'RH_HFE', 'RH_KFE'];
const FRANKA_TARGET = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02];

export type SpeedScene = 'franka' | 'anymal_c';
export type SpeedSettings = 'fast' | 'accurate';

/** The rigid options of each settings kind (on top of dt 0.01). */
export function settingsOptions(settings: SpeedSettings): gs.RigidOptions {
  return settings === 'fast'
    ? { constraintSolver: 'cg', iterations: 100, enableSelfCollision: false }
    : { constraintSolver: 'newton', enableSelfCollision: true };
}

/** Adds the benchmark's robot to a scene and returns the function that sets its targets once after build. */
export function addRobot(scene: gs.Scene, which: SpeedScene): () => void {
  scene.addEntity(gs.morphs.Plane());
  if (which === 'franka') {
    const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
    return () => franka.controlDofsPosition(FRANKA_TARGET);
  }
  const robot = scene.addEntity(gs.morphs.URDF({ file: 'urdf/anymal_c/urdf/anymal_c.urdf', pos: [0, 0, 0.8] }));
  return () => {
    const dofs = LEG_JOINTS.map((name) => robot.getJoint(name).dofsIdxLocal[0]!);
    robot.setDofsKp(new Float64Array(dofs.length).fill(1000), { dofsIdx: dofs });
    robot.controlDofsPosition(new Float64Array(dofs.length), { dofsIdx: dofs });
  };
}

/** The command line; a separate function so that its inferred type names `parsed` below. */
function parseOptions() {
  return parseArgs({
    options: {
      scene: { type: 'string', default: 'franka' },
      settings: { type: 'string', default: 'fast' },
      'n-envs': { type: 'string', default: '30000' },
      steps: { type: 'string', default: '1000' },
      'max-seconds': { type: 'string', default: '40' },
      'budget-seconds': { type: 'string' },
      backend: { type: 'string', default: 'gpu' },
      'no-performance-mode': { type: 'boolean', default: false },
      json: { type: 'string' },
    },
  });
}

async function main(): Promise<void> {
  const fail = (msg: string): never => {
    console.error(`gpu-speed: ${msg}`);
    process.exit(2);
  };
  let parsed: ReturnType<typeof parseOptions> | undefined;
  try {
    parsed = parseOptions();
  } catch (err) {
    fail((err as Error).message);
  }
  const values = parsed!.values;
  const which = values.scene as SpeedScene;
  if (which !== 'franka' && which !== 'anymal_c') fail(`--scene must be franka or anymal_c, got '${values.scene}'`);
  const settings = values.settings as SpeedSettings;
  if (settings !== 'fast' && settings !== 'accurate') fail(`--settings must be fast or accurate, got '${values.settings}'`);
  const backend = values.backend as 'gpu' | 'cpu';
  if (backend !== 'gpu' && backend !== 'cpu') fail(`--backend must be gpu or cpu, got '${values.backend}'`);
  const int = (name: string, v: string, min: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) fail(`--${name} needs a whole number >= ${min}, got '${v}'`);
    return n;
  };
  let nEnvs = int('n-envs', values['n-envs']!, 1);
  const steps = int('steps', values.steps!, 1);
  const maxSeconds = Number(values['max-seconds']);
  if (!(maxSeconds > 0)) fail(`--max-seconds must be a positive number, got '${values['max-seconds']}'`);
  // The whole run's budget (start-up and compile included): stepping stops early so that a slow compile
  // still leaves a measurement instead of a killed process.
  const budgetSeconds = values['budget-seconds'] === undefined ? Infinity : Number(values['budget-seconds']);
  if (!(budgetSeconds > 0)) fail(`--budget-seconds must be a positive number, got '${values['budget-seconds']}'`);
  const performanceMode = !values['no-performance-mode'];

  try {
    await gs.init({ backend, precision: '32', performanceMode, loggingLevel: 'warning' });
  } catch (err) {
    fail((err as Error).message);
  }
  const adapter = gs.device!.name;
  const makeScene = (): { scene: gs.Scene; setTargets: () => void } => {
    const scene = new gs.Scene({
      rigidOptions: { dt: 0.01, ...settingsOptions(settings), resetOnError: true },
      profilingOptions: { showFPS: false },
    });
    return { scene, setTargets: addRobot(scene, which) };
  };
  let { scene, setTargets } = makeScene();
  const tBuild = performance.now();
  try {
    await scene.build({ nEnvs, envSpacing: [1.0, 1.0] });
  } catch (err) {
    // A device whose buffers cannot hold nEnvs still gives a number: at the largest nEnvs that fits.
    const fits = /largest nEnvs that fits is (\d+)/.exec((err as Error).message);
    if (!fits) throw err;
    console.log(`gpu-speed: ${(err as Error).message}; running ${fits[1]} envs instead`);
    nEnvs = Number(fits[1]);
    ({ scene, setTargets } = makeScene());
    await scene.build({ nEnvs, envSpacing: [1.0, 1.0] });
  }
  const buildS = (performance.now() - tBuild) / 1000;
  setTargets();
  const tFirst = performance.now();
  scene.step();
  await scene.sync();
  const firstStepS = (performance.now() - tFirst) / 1000;
  // A short warm-up (clocks, caches), capped so a slow device does not spend the budget here.
  const tWarm = performance.now();
  for (let i = 0; i < 20 && performance.now() - tWarm < 2000; i++) {
    scene.step();
    await scene.sync();
  }

  // Steps go in batches ended by a sync: long enough to keep the device queue full, short enough to stop on time.
  let done = 0;
  let batch = 1;
  const t0 = performance.now();
  let elapsed = 0;
  // performance.now() counts from process start, which is what the budget covers.
  while (done < steps && elapsed < maxSeconds && (done === 0 || performance.now() / 1000 < budgetSeconds)) {
    const n = Math.min(batch, steps - done);
    const tb = performance.now();
    for (let i = 0; i < n; i++) scene.step();
    await scene.sync();
    done += n;
    const batchS = (performance.now() - tb) / 1000;
    elapsed = (performance.now() - t0) / 1000;
    if (batchS < 0.1) batch = Math.min(batch * 2, 256);
  }
  const rate = (done * nEnvs) / elapsed;
  const resets = scene.errorResetCount;
  const o = scene.options!;
  await scene.destroy();
  await gs.destroy();

  const settingsText = `${o.constraintSolver}, ${o.iterations} iterations, tol ${o.tolerance}, self-collision ${o.enableSelfCollision ? 'on' : 'off'}`;
  console.log(`adapter: ${adapter}`);
  console.log(`${which} ${settings} (${settingsText}), ${nEnvs} envs, performanceMode ${performanceMode ? 'on' : 'off'}: ` +
    `build ${buildS.toFixed(2)} s, first step ${firstStepS.toFixed(2)} s, ${done} steps in ${elapsed.toFixed(2)} s` +
    (resets > 0 ? `, ${resets} env resets after NaN/blow-up` : ''));
  console.log(`${which}-${settings}@${nEnvs} env-steps/s: ${Math.round(rate)}`);
  if (values.json) {
    appendFileSync(values.json, `${JSON.stringify({
      scene: which, settings, nEnvs, steps: done, seconds: elapsed, envStepsPerS: rate, buildS, firstStepS,
      performanceMode, adapter, solver: o.constraintSolver, iterations: o.iterations, tolerance: o.tolerance,
      selfCollision: o.enableSelfCollision, resets,
    })}\n`);
  }
}

// Run only as a script, so that bench/sim-gpu.ts can import the scene setup.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
