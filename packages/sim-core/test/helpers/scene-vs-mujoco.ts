/**
 * One MJCF stepped side by side in a one-env CPU f64 sim-core scene (through the public API) and in MuJoCo
 * (mujoco-js), both from keyframe 0: the largest difference over the steps in qpos, qvel and the Data fields named
 * (sim-core's name, MuJoCo's name), NaN counted as infinite so that a comparison fails on it.
 */
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujoco, loadMujocoXml, startAtKeyframe } from './mujoco.js';
import { writeXml } from './xml-file.js';

export type FieldPair = readonly [simCore: string, mujoco: string];

/**
 * `xml` is MJCF text, or `{ file }` a model file (its folder is copied into MuJoCo's file system); `ctrl`, when
 * given, replaces the keyframe's controls in both.
 */
export async function sceneVsMujoco(
  xml: string | { file: string }, steps: number, fields: readonly FieldPair[] = [], ctrl?: readonly number[],
): Promise<number> {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
  const ref = typeof xml === 'string' ? await loadMujocoXml(xml) : await loadMujoco(xml.file);
  try {
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: typeof xml === 'string' ? writeXml(xml, 'gsprof-vs-mujoco-') : xml.file }));
    await scene.build();
    const d = scene.requireSim().hostData! as unknown as Record<string, Float64Array>;
    startAtKeyframe(ref, d as never);
    if (ctrl) {
      d.ctrl!.set(ctrl);
      (ref.d.ctrl as Float64Array).set(ctrl);
    }
    const all: FieldPair[] = [['qpos', 'qpos'], ['qvel', 'qvel'], ...fields];
    let worst = 0;
    for (let s = 0; s < steps; s++) {
      scene.step();
      ref.mj.mj_step(ref.m, ref.d);
      for (const [ours, theirs] of all) {
        const a = d[ours]!, b = ref.d[theirs] as ArrayLike<number>;
        for (let k = 0; k < b.length; k++) worst = Math.max(worst, Math.abs(a[k]! - b[k]!));
      }
    }
    await scene.destroy();
    return Number.isNaN(worst) ? Number.POSITIVE_INFINITY : worst;
  } finally {
    disposeMujoco(ref);
  }
}

/**
 * How far MuJoCo's own run from keyframe 0 (then `ctrl`) under `integrator` (mjtIntegrator: 0 Euler, 2 implicit, 3
 * implicitfast) ends from its run under the file's integrator, in qpos and qvel: a comparison whose tolerance is
 * far below this would see the integrator's terms go missing.
 */
export async function mujocoIntegratorGap(
  xml: string | { file: string }, steps: number, integrator: number, ctrl?: readonly number[],
): Promise<number> {
  const ref = typeof xml === 'string' ? await loadMujocoXml(xml) : await loadMujoco(xml.file);
  try {
    const end = (): number[] => {
      ref.mj.mj_resetDataKeyframe(ref.m, ref.d, 0);
      ctrl?.forEach((c, k) => { ref.d.ctrl[k] = c; });
      for (let s = 0; s < steps; s++) ref.mj.mj_step(ref.m, ref.d);
      return [...Array.from(ref.d.qpos as ArrayLike<number>), ...Array.from(ref.d.qvel as ArrayLike<number>)];
    };
    const own = end();
    ref.m.opt.integrator = integrator;
    const other = end();
    let gap = 0;
    own.forEach((v, k) => { gap = Math.max(gap, Math.abs(v - other[k]!)); });
    return Number.isNaN(gap) ? Number.POSITIVE_INFINITY : gap;
  } finally {
    disposeMujoco(ref);
  }
}
