/**
 * Menagerie's Skydio X2 quadrotor as shipped (its visual mesh geom stripped: mass 0, no contact; see
 * menagerie/skydio_x2/PROVENANCE.md): rotors driven through site transmissions (a thrust and a yaw torque at each
 * rotor site), fluid forces from <option density viscosity>, IMU sensors. From its hover keyframe with the rotors'
 * thrusts unbalanced, so that it tilts, drifts, turns and at step ~138 hits the floor and tumbles, it follows
 * MuJoCo (mujoco-js) for 500 steps (5 s at its 0.01 s timestep) in qpos, qvel, actuator forces, qfrc_passive and
 * sensordata (CPU f64).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { sceneVsMujoco } from '../helpers/scene-vs-mujoco.js';

afterEach(async () => { await gs.destroy(); });

const SCENE = fileURLToPath(new URL('./menagerie/skydio_x2/scene.xml', import.meta.url));

describe('Skydio X2 (Menagerie) follows MuJoCo', () => {
  test('500 steps from hover with unbalanced thrusts: qpos, qvel, actuator forces, IMU sensordata', async () => {
    const worst = await sceneVsMujoco({ file: SCENE }, 500,
      [['actuatorForce', 'actuator_force'], ['sensordata', 'sensordata'], ['qfrcPassive', 'qfrc_passive']],
      [3.4, 3.15, 3.3, 3.2]);
    console.log(`Skydio X2: worst |difference| ${worst.toExponential(2)}`);
    // measured 7.6e-12, in the accelerometer while the tumbling drone hits the floor (readings up to 314 m/s^2,
    // 2e-14 relative); qpos and qvel alone to 5.4e-13. 1e-9 leaves a margin of ~130, and NaN fails
    expect(worst).toBeLessThanOrEqual(1e-9);
  }, 60_000);
});
