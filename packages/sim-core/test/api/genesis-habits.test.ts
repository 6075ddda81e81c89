/**
 * Genesis habits fail loudly or work (issue 13): snake_case option keys are rejected with the camelCase name,
 * unknown gs.init keys are rejected, and gs.cpu / gs.gpu are the backend names. Before, `n_envs` built an
 * unbatched scene and `backend: gs.gpu` ran as 'auto'.
 */
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

afterEach(async () => {
  await gs.destroy();
});

describe('Genesis habits', () => {
  test('gs.cpu and gs.gpu name the backends, and gs.init({ backend: gs.cpu }) runs on the CPU', async () => {
    expect(gs.cpu).toBe('cpu');
    expect(gs.gpu).toBe('gpu');
    await gs.init({ backend: gs.cpu });
    expect(gs.backend).toBe('cpu');
  });

  test('gs.init rejects snake_case keys with the camelCase name, and unknown keys with the known ones', async () => {
    await expect(gs.init({ logging_level: 'info' } as never)).rejects.toThrow("gs.init: unknown option 'logging_level'; did you mean 'loggingLevel'?");
    await expect(gs.init({ backnd: 'cpu' } as never)).rejects.toThrow(/gs\.init: unknown option 'backnd' \(known: backend, /);
    expect(gs.isInitialized()).toBe(false);
  });

  test("scene.build({ n_envs: 4 }) is refused with \"did you mean 'nEnvs'\" instead of building an unbatched scene", async () => {
    await gs.init({ backend: 'cpu' });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.Plane());
    await expect(scene.build({ n_envs: 4 } as never)).rejects.toThrow("scene.build: unknown option 'n_envs'; did you mean 'nEnvs'?");
    await scene.build({ nEnvs: 4 });
    expect(scene.nEnvs).toBe(4);
  });

  test('scene.reset(undefined, [0]) resets env 0 only, as Genesis; a saved state is refused, not ignored', async () => {
    await gs.init({ backend: 'cpu', precision: '64' });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
    await scene.build({ nEnvs: 2 });
    const q0 = (await franka.getDofsPosition()).toArray() as number[][];
    franka.controlDofsPosition([0.5, 0.5, 0, -1, 0, 1, 0, 0.02, 0.02]);
    for (let s = 0; s < 20; s++) scene.step();
    scene.reset(undefined, [0]);
    const q = (await franka.getDofsPosition()).toArray() as number[][];
    expect(q[0]).toEqual(q0[0]);
    expect(Math.abs(q[1]![0]! - q0[1]![0]!)).toBeGreaterThan(1e-3); // before, env 1 was reset too
    expect(() => scene.reset({ qpos: [] } as never)).toThrow("scene.reset: unknown option 'qpos' (known: envsIdx)");
    expect(() => scene.reset([1, 2, 3] as never)).toThrow(/saved states are not supported/);
    expect(() => scene.reset({ envs_idx: [0] } as never)).toThrow("scene.reset: unknown option 'envs_idx'; did you mean 'envsIdx'?");
  });

  test('controlDofsPosition(pos, dofsIdx, envsIdx) positional as Genesis; dofs_idx_local gets the camelCase name', async () => {
    await gs.init({ backend: 'cpu', precision: '64' });
    const run = async (control: (e: gs.Entity) => void): Promise<number[]> => {
      const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
      const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
      await scene.build({ nEnvs: 2 });
      control(franka);
      for (let s = 0; s < 20; s++) scene.step();
      return Array.from((await franka.getDofsPosition({ dofsIdx: [1] })).toArray() as number[][], (r) => r[0]!);
    };
    const positional = await run((e) => e.controlDofsPosition([[0.5]], [1], [0]));
    const keyed = await run((e) => e.controlDofsPosition([[0.5]], { dofsIdx: [1], envsIdx: [0] }));
    expect(positional).toEqual(keyed);
    // only env 0's dof 1 was driven to 0.5: it moved, env 1 did not follow it
    expect(positional[0]! - positional[1]! > 1e-3).toBe(true);
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
    await scene.build();
    expect(() => franka.controlDofsPosition([0.5], { dofs_idx_local: [1] } as never))
      .toThrow("dofs arguments: unknown option 'dofs_idx_local'; did you mean 'dofsIdx'?");
  });
});
