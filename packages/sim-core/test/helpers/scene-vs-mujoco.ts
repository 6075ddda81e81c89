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
