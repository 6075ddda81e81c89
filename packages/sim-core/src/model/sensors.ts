/**
 * Sensors (<sensor>) into and out of the Model's sensor_* fields, in MuJoCo's layout: sensors in file order, each
 * with its object (and reference frame), its dimension and its address in sensordata. Noise is stored, not
 * applied (MuJoCo stopped adding it in 3.1.4); cutoff clamps the value as MuJoCo's apply_cutoff does.
 */
import type { Model } from './model.js';

/** The sensor types sim-core computes (its own numbering; the MJCF element names are the user-facing ones). */
export const enum SensorType {
  JointPos = 0, JointVel = 1, ActuatorFrc = 2, FramePos = 3, FrameQuat = 4, FrameLinVel = 5, FrameAngVel = 6,
  Accelerometer = 7, Gyro = 8, Velocimeter = 9, Force = 10, Torque = 11, SubtreeCom = 12, Clock = 13,
}

/** What a sensor's objid / refid index: MuJoCo's mjtObj for the objects sensors name. */
export const enum SensorObj { None = 0, Body = 1, XBody = 2, Joint = 3, Geom = 5, Site = 6, Actuator = 19 }

/** Values per sensor type. */
export const SENSOR_DIM: readonly number[] = [1, 1, 1, 3, 4, 3, 3, 3, 3, 3, 3, 3, 3, 1];

/** MuJoCo's element name of each type, for messages and the per-sensor info. */
export const SENSOR_ELEMENT: readonly string[] = [
  'jointpos', 'jointvel', 'actuatorfrc', 'framepos', 'framequat', 'framelinvel', 'frameangvel',
  'accelerometer', 'gyro', 'velocimeter', 'force', 'torque', 'subtreecom', 'clock',
];

export interface SensorSpec {
  name: string;
  type: SensorType;
  objtype: SensorObj; objid: number;
  reftype: SensorObj; refid: number;
  cutoff: number; noise: number;
}

/** Fills m.nsensor and the sensor_* arrays; a model without sensors gets none of them. */
export function layoutSensors(m: Model, sensors: readonly SensorSpec[]): void {
  if (sensors.length === 0) return;
  const n = sensors.length;
  m.nsensor = n;
  m.sensorType = Int32Array.from(sensors, (s) => s.type);
  m.sensorObjtype = Int32Array.from(sensors, (s) => s.objtype);
  m.sensorObjid = Int32Array.from(sensors, (s) => s.objid);
  m.sensorReftype = Int32Array.from(sensors, (s) => s.reftype);
  m.sensorRefid = Int32Array.from(sensors, (s) => s.refid);
  m.sensorDim = Int32Array.from(sensors, (s) => SENSOR_DIM[s.type]!);
  m.sensorAdr = new Int32Array(n);
  let adr = 0;
  for (let i = 0; i < n; i++) { m.sensorAdr[i] = adr; adr += m.sensorDim[i]!; }
  m.nsensordata = adr;
  m.sensorCutoff = Float64Array.from(sensors, (s) => s.cutoff);
  m.sensorNoise = Float64Array.from(sensors, (s) => s.noise);
  m.sensorName = sensors.map((s) => s.name);
}

/** The Model's sensors as specs (for merging models). */
export function sensorSpecs(m: Model): SensorSpec[] {
  return Array.from({ length: m.nsensor ?? 0 }, (_, i) => ({
    name: m.sensorName![i] ?? '', type: m.sensorType![i]! as SensorType,
    objtype: m.sensorObjtype![i]! as SensorObj, objid: m.sensorObjid![i]!,
    reftype: m.sensorReftype![i]! as SensorObj, refid: m.sensorRefid![i]!,
    cutoff: m.sensorCutoff![i]!, noise: m.sensorNoise![i]!,
  }));
}
