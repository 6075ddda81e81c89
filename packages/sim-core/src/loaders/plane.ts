/**
 * gs.morphs.Plane: an infinite ground plane through the origin with +z up, as a geom on the world body
 * (MuJoCo's plane with size 0 0 1: infinite extent, 1 m rendering grid).
 */
import { GeomType } from '../model/model.js';
import { DEFAULT_SOLIMP, DEFAULT_SOLREF, buildModel, defaultOptions, worldBody } from '../model/builder.js';
import type { LoadedModel } from './types.js';

export function planeModel(): LoadedModel {
  const world = worldBody();
  world.geoms.push({
    name: 'plane', type: GeomType.Plane, size: [0, 0, 1], rbound: 0, pos: [0, 0, 0], quat: [1, 0, 0, 0],
    contype: 1, conaffinity: 1, condim: 3, priority: 0, friction: [1, 0.005, 0.0001], solmix: 1,
    solref: [...DEFAULT_SOLREF], solimp: [...DEFAULT_SOLIMP], margin: 0, gap: 0,
  });
  const model = buildModel({ bodies: [world], actuators: [], equalities: [], excludes: [], keys: [], opt: defaultOptions() });
  return { model, options: {}, log: [], sourceFile: '' };
}
