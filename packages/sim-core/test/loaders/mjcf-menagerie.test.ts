/**
 * The MJCF compiler against MuJoCo on the two Menagerie models users load: every Model field must match the
 * model MuJoCo compiles from the same files (ints exactly, reals to 1e-9 relative).
 */
import { describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { Integrator, SolverType } from '../../src/model/model.js';
import { loadMujoco } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from './compare.js';

describe.skipIf(!hasShared())('loadMJCF on the Menagerie models', () => {
  it('compiles the Franka scene exactly as MuJoCo does', async () => {
    const file = sharedPath('models', 'franka_emika_panda_nomesh', 'mjx_scene.xml');
    const ours = loadMJCF(file);
    const { mj, m } = await loadMujoco(file);
    expect(diffModels(ours.model, mujocoModel(mj, m))).toEqual([]);
    expect(ours.model.nq).toBe(9);
    expect(ours.model.nu).toBe(8);
    // the shared-default-slot rule: <position forcerange="-100 100"> overrides <general forcerange="-87 87">
    expect(Array.from(ours.model.actuatorForcerange.subarray(0, 2))).toEqual([-100, 100]);
    expect(ours.options).toEqual({
      timestep: 0.005, iterations: 5, lsIterations: 8, integrator: Integrator.ImplicitFast, disableEulerdamp: true,
    });
    expect(ours.log.some((l) => l.includes('<light>'))).toBe(true);
  });

  it('compiles the ANYmal C scene exactly as MuJoCo does', async () => {
    const file = sharedPath('models', 'anybotics_anymal_c_nomesh', 'scene_mjx.xml');
    const ours = loadMJCF(file);
    const { mj, m } = await loadMujoco(file);
    expect(diffModels(ours.model, mujocoModel(mj, m))).toEqual([]);
    expect(ours.model.nq).toBe(19);
    expect(ours.model.nv).toBe(18);
    expect(ours.model.keyName).toEqual(['standing']);
    expect(ours.options).toMatchObject({ solver: SolverType.Newton, iterations: 1, lsIterations: 4, impratio: 100, disableEulerdamp: true });
    expect(ours.options.timestep).toBeUndefined();
  });
});
