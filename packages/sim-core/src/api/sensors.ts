/**
 * Reading sensors: MuJoCo's sensordata of the last step, the whole array for the scene (scene.getSensorData) or one
 * named sensor of an entity (entity.getSensor). Sensors are computed by the CPU backend's `sensor` stage only; on
 * the GPU backend a read is refused rather than answered with zeros.
 */
import type { SimInstance } from '../backend/backend.js';
import type { Model } from '../model/model.js';
import { SENSOR_ELEMENT } from '../model/sensors.js';
import { parseEnvsIdx, type IndexInput } from './indices.js';
import { Tensor } from './tensor.js';

/** One sensor of an entity, as the model file declares it. */
export interface SensorInfo {
  name: string;
  /** MuJoCo's element name: 'jointpos', 'accelerometer', ... */
  type: string;
  /** Values it gives. */
  dim: number;
  /** Index into the scene's sensordata (scene.getSensorData's columns). */
  adr: number;
  /** The file's noise (standard deviation): stored, never added, as in MuJoCo since 3.1.4. */
  noise: number;
  /** |value| is clamped to it when positive (a quaternion never is). */
  cutoff: number;
}

export function sensorInfo(m: Model, first: number, count: number): SensorInfo[] {
  return Array.from({ length: count }, (_, k) => {
    const i = first + k;
    return {
      name: m.sensorName![i] ?? '', type: SENSOR_ELEMENT[m.sensorType![i]!]!, dim: m.sensorDim![i]!,
      adr: m.sensorAdr![i]!, noise: m.sensorNoise![i]!, cutoff: m.sensorCutoff![i]!,
    };
  });
}

/** sensordata columns [adr, adr + dim) of the selected envs: [envs, dim], or [dim] for a scalar envsIdx or an
 *  unbatched scene. */
export async function readSensorData(sim: SimInstance, nEnvs: number, adr: number, dim: number, envsIdx: IndexInput | undefined): Promise<Tensor> {
  if (sim.hostData === null) {
    throw new Error('sensors are computed on the CPU backend only: gs.init({ backend: \'cpu\' }) to read them (the GPU backend has no sensor stage)');
  }
  const envs = parseEnvsIdx(envsIdx, nEnvs);
  const data = await sim.readState('sensordata', Int32Array.from({ length: dim }, (_, k) => adr + k), envs.idx);
  return new Tensor(data, envs.scalar ? [dim] : [envs.idx.length, dim]);
}
