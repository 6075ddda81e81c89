/**
 * Combines several entities (a plane, robots, ...) into the one Model a scene simulates, as Genesis builds a
 * single rigid solver from all its entities: one world body holding every entity's static geoms, then each
 * entity's bodies, joints, dofs, geoms, actuators, equalities, tendons and keyframes appended with index offsets.
 * The returned ranges let the API map entity-local indices to global ones.
 */
import { EqType, TrnType, type Model, type ModelOptions } from '../model/model.js';
import { buildModel, defaultOptions, jointNq, jointNv, worldBody, type BodySpec, type KeySpec, type ModelSpec } from '../model/builder.js';
import { specFromModel } from '../model/model-spec.js';
import { SensorObj } from '../model/sensors.js';
import type { LoadedModel } from './types.js';

/** Where one entity's elements landed in the merged model: global index = start + local index. */
export interface EntityRange {
  /** First non-world body; the entity's local body k (k >= 1) is global body bodyStart + k - 1. */
  bodyStart: number; nbody: number;
  jntStart: number; njnt: number;
  dofStart: number; nv: number;
  qposStart: number; nq: number;
  actuatorStart: number; nu: number;
  /** The entity's geoms on moving (non-world) bodies are contiguous from geomStart. */
  geomStart: number; ngeom: number;
  /** The entity's geoms attached to the world body (those come first in the merged model). */
  worldGeoms: number[];
  siteStart: number; nsite: number;
  eqStart: number; neq: number;
  /** The entity's sensors, contiguous (sensors keep the order of the entities). */
  sensorStart: number; nsensor: number;
  keyStart: number; nkey: number;
}

export interface MergedModel { model: Model; entities: EntityRange[] }

export function mergeModels(parts: LoadedModel[]): MergedModel {
  const specs = parts.map((p) => specFromModel(p.model));
  const world: BodySpec = worldBody();
  const bodies: BodySpec[] = [world];
  const merged: ModelSpec = { bodies, actuators: [], equalities: [], tendons: [], excludes: [], pairs: [], sensors: [], keys: [], opt: mergedOptions(parts) };
  const entities: EntityRange[] = [];

  // world geoms and sites first, in entity order: MuJoCo keeps each body's geoms contiguous
  const worldGeoms: number[][] = [];
  const worldSites: number[][] = [];
  for (const s of specs) {
    const w = s.bodies[0]!;
    worldGeoms.push(w.geoms.map((_, k) => world.geoms.length + k));
    worldSites.push(w.sites.map((_, k) => world.sites.length + k));
    // Loops, not push(...): spreading a model-sized array overflows the stack (20,000 bodies did).
    for (const g of w.geoms) world.geoms.push(g);
    for (const x of w.sites) world.sites.push(x);
  }

  let jnt = 0, dof = 0, qpos = 0, geom = world.geoms.length, site = world.sites.length;
  const qpos0: number[] = [];
  specs.forEach((s, e) => {
    const bodyStart = bodies.length;
    const offset = bodyStart - 1;
    const r: EntityRange = {
      bodyStart, nbody: s.bodies.length - 1, jntStart: jnt, njnt: 0, dofStart: dof, nv: 0, qposStart: qpos, nq: 0,
      actuatorStart: merged.actuators.length, nu: s.actuators.length, geomStart: geom, ngeom: 0,
      worldGeoms: worldGeoms[e]!, siteStart: site, nsite: 0, eqStart: merged.equalities.length, neq: s.equalities.length,
      keyStart: 0, nkey: s.keys.length, sensorStart: 0, nsensor: 0,
    };
    for (const b of s.bodies.slice(1)) {
      bodies.push({ ...b, parent: b.parent === 0 ? 0 : b.parent + offset });
      for (const j of b.joints) {
        r.njnt++;
        r.nv += jointNv(j.type);
        r.nq += jointNq(j.type);
      }
      r.ngeom += b.geoms.length;
      r.nsite += b.sites.length;
    }
    jnt += r.njnt; dof += r.nv; qpos += r.nq; geom += r.ngeom; site += r.nsite;
    for (const q of parts[e]!.model.qpos0) qpos0.push(q);

    // an actuator's target is a joint, a tendon (numbered after the earlier entities' tendons) or a site (and refsite)
    const tendonStart = merged.tendons!.length;
    const nworldSites = s.bodies[0]!.sites.length;
    const siteAt = (x: number): number => (x < nworldSites ? worldSites[e]![x]! : r.siteStart + x - nworldSites);
    for (const a of s.actuators) {
      if (a.trntype === TrnType.Site) {
        merged.actuators.push({ ...a, joint: siteAt(a.joint), refsite: a.refsite === undefined || a.refsite < 0 ? -1 : siteAt(a.refsite) });
      } else {
        merged.actuators.push({ ...a, joint: a.joint + (a.trntype === TrnType.Tendon ? tendonStart : r.jntStart) });
      }
    }
    for (const q of s.equalities) {
      // joint equalities refer to joints (-1: none); connect and weld to bodies, where the world (0) stays
      const joint = q.type === EqType.Joint;
      const move = (o: number): number => (joint ? (o < 0 ? o : o + r.jntStart) : (o === 0 ? 0 : o + offset));
      merged.equalities.push({ ...q, obj1: move(q.obj1), obj2: move(q.obj2) });
    }
    for (const t of s.tendons ?? []) {
      const joints = t.joints.map((j) => ({ joint: j.joint + r.jntStart, coef: j.coef }));
      // a spatial tendon's sites and geoms: the entity's world ones moved to the front of the merged world, the rest shifted
      const nworldGeoms = s.bodies[0]!.geoms.length;
      const wrapAt = (g: number): number => (g < nworldGeoms ? r.worldGeoms[g]! : r.geomStart + g - nworldGeoms);
      const path = t.path?.map((p) => {
        if ('site' in p) return { site: siteAt(p.site) };
        if ('geom' in p) return { geom: wrapAt(p.geom), sidesite: p.sidesite < 0 ? -1 : siteAt(p.sidesite) };
        return p;
      });
      merged.tendons!.push(path ? { ...t, joints, path } : { ...t, joints });
    }
    for (const [a, b] of s.excludes) merged.excludes.push([a === 0 ? 0 : a + offset, b === 0 ? 0 : b + offset]);
    // a pair's geoms: the entity's world geoms moved to the front of the merged world, the rest shifted
    const nworld = s.bodies[0]!.geoms.length;
    const geomAt = (g: number): number => (g < nworld ? r.worldGeoms[g]! : r.geomStart + g - nworld);
    for (const p of s.pairs ?? []) merged.pairs!.push({ ...p, geom1: geomAt(p.geom1), geom2: geomAt(p.geom2) });
    // a sensor's object and reference frame, renumbered as the objects they name
    const objAt = (type: SensorObj, id: number): number => {
      switch (type) {
        case SensorObj.Body: case SensorObj.XBody: return id === 0 ? 0 : id + offset;
        case SensorObj.Joint: return id + r.jntStart;
        case SensorObj.Actuator: return id + r.actuatorStart;
        case SensorObj.Geom: return geomAt(id);
        case SensorObj.Site: return siteAt(id);
        default: return id;
      }
    };
    r.sensorStart = merged.sensors!.length;
    r.nsensor = s.sensors?.length ?? 0;
    for (const x of s.sensors ?? []) merged.sensors!.push({ ...x, objid: objAt(x.objtype, x.objid), refid: x.refid < 0 ? -1 : objAt(x.reftype, x.refid) });
    entities.push(r);
  });

  // keyframes: each entity's keys, with every other entity at its reference pose, at rest, with zero controls
  const nq = qpos, nv = dof, nu = merged.actuators.length;
  specs.forEach((s, e) => {
    const r = entities[e]!;
    r.keyStart = merged.keys.length;
    for (const k of s.keys) {
      const full: KeySpec = { name: k.name, time: k.time, qpos: [...qpos0], qvel: new Array<number>(nv).fill(0), ctrl: new Array<number>(nu).fill(0) };
      k.qpos?.forEach((v, i) => { full.qpos![r.qposStart + i] = v; });
      k.qvel?.forEach((v, i) => { full.qvel![r.dofStart + i] = v; });
      k.ctrl?.forEach((v, i) => { full.ctrl![r.actuatorStart + i] = v; });
      merged.keys.push(full);
    }
  });
  if (qpos0.length !== nq) throw new Error('mergeModels: inconsistent qpos sizes');
  return { model: buildModel(merged), entities };
}

/** MuJoCo's defaults, overlaid by what each entity's file set (later entities win). */
function mergedOptions(parts: LoadedModel[]): ModelOptions {
  const opt = defaultOptions();
  for (const p of parts) Object.assign(opt, p.options);
  return opt;
}
