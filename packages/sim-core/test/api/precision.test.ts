/** precision '32' (Genesis' default): state, reads and default tensors are float32. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as gs from '../../src/index.js';

beforeAll(async () => {
  await gs.init({ backend: 'cpu', loggingLevel: 'warning' });
});
afterAll(async () => {
  await gs.destroy();
});

test('f32 scene: reads are float32 tensors holding the f32-rounded values', async () => {
  expect(gs.precision).toBe('32');
  expect(gs.tensor([1, 2]).dtype).toBe('float32');
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
  await scene.build({ nEnvs: 4 });
  expect(scene.bytesPerEnv).toBeLessThan(30000);
  franka.setDofsPosition([0.1, 0.2, 0, -1.1, 0, 1.3, 0, 0.01, 0.01], { envsIdx: [2] });
  const q = await franka.getDofsPosition({ envsIdx: 2 });
  expect(q.dtype).toBe('float32');
  expect(q.data).toBeInstanceOf(Float32Array);
  expect(q.data[0]).toBe(Math.fround(0.1));
  for (let i = 0; i < 10; i++) scene.step();
  const after = (await franka.getDofsPosition()).toArray() as number[][];
  expect(after.flat().every(Number.isFinite)).toBe(true);
  await scene.destroy();
});
