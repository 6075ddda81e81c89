/**
 * The static part of collision detection, computed once per model: which geom pairs may ever touch.
 *
 * MuJoCo decides this per step in its broad phase, but every test it applies besides the bounding volumes
 * depends only on the model, so it is done here once: contype/conaffinity, bodies welded together or to their
 * parent's weld (filterparent), <exclude> pairs, and gsprof's self-collision switch (two bodies of one
 * kinematic tree, i.e. one entity). Pairs come out in MuJoCo's contact order: body pairs by (body1, body2),
 * then geoms in model order, each pair ordered so that geom 1 has the lower geom type.
 */
import { GeomType, type Model } from '../model/model.js';
import { capsuleBox, sphereBox } from './box.js';
import { boxBox } from './box-box.js';
import type { NarrowPhase } from './contact.js';
import { CCD_ITERATIONS, CCD_TOLERANCE, convexNarrowPhase, planeConvex } from './convex.js';
import { hfieldNarrowPhase } from './hfield.js';
import { freshMeshSearch, meshSupport, planeMesh } from './mesh.js';
import { geomHField, hfieldSpec } from '../model/hfields.js';
import { explicitParams, mixParams, type PairParams } from './params.js';
import { planeBox, planeCapsule, planeCylinder, planeSphere } from './plane.js';
import { capsuleCapsule, sphereCapsule, sphereCylinder, sphereSphere } from './round.js';
import { ellipsoidPlaneSupport, primitiveSupport } from './support.js';

export interface CollisionPlan {
  npair: number;
  geom1: Int32Array;
  geom2: Int32Array;
  narrow: NarrowPhase[];
  margin: Float64Array;         // max of the two geom margins
  includemargin: Float64Array;  // margin - gap
  condim: Int32Array;
  friction: Float64Array;       // 5 per pair
  solref: Float64Array;         // 2 per pair
  solimp: Float64Array;         // 5 per pair
  /** Pairs that pass every filter but have no narrow phase here (e.g. box-box); collisionPlan refuses them. */
  unsupported: string[];
  selfCollision: boolean;
}

/**
 * The narrow phase for (type1, type2) with type1 <= type2, or null. Pairs with an analytic routine dispatch
 * straight to it; the rest go through GJK/EPA with the model's ccd_tolerance and ccd_iterations.
 */
export function narrowPhaseFor(
  type1: number, type2: number, ccdTolerance = CCD_TOLERANCE, ccdIterations = CCD_ITERATIONS,
): NarrowPhase | null {
  switch (type1) {
    case GeomType.Plane:
      switch (type2) {
        case GeomType.Sphere: return planeSphere;
        case GeomType.Capsule: return planeCapsule;
        case GeomType.Cylinder: return planeCylinder;
        case GeomType.Box: return planeBox;
        case GeomType.Mesh: return planeMesh;
        case GeomType.Ellipsoid: return planeEllipsoid;
      }
      return null;
    case GeomType.Sphere:
      switch (type2) {
        case GeomType.Sphere: return sphereSphere;
        case GeomType.Capsule: return sphereCapsule;
        case GeomType.Cylinder: return sphereCylinder;
        case GeomType.Box: return sphereBox;
      }
      break;
    case GeomType.Capsule:
      switch (type2) {
        case GeomType.Capsule: return capsuleCapsule;
        case GeomType.Box: return capsuleBox;
      }
      break;
    case GeomType.Box:
      if (type2 === GeomType.Box) return boxBox;
      break;
  }
  return convexPairFor(type1, type2, ccdTolerance, ccdIterations);
}

/** Plane-ellipsoid is MuJoCo's mjc_PlaneConvex: one contact at the ellipsoid's lowest point. */
const planeEllipsoid: NarrowPhase = (out, plane, ell, margin) => planeConvex(out, plane, ell, ellipsoidPlaneSupport, margin);

/**
 * Pairs MuJoCo sends to mjc_Convex (its mjCOLLISIONFUNC table): those with an ellipsoid, capsule-cylinder,
 * cylinder-cylinder, cylinder-box, and every pair with a mesh but plane-mesh (the mesh's support is meshSupport).
 * One narrow phase per type pair, made once.
 */
const convexPairs = new Map<string, NarrowPhase>();
function convexPairFor(type1: number, type2: number, tol: number, iterations: number): NarrowPhase | null {
  const s1 = type1 === GeomType.Mesh ? meshSupport : primitiveSupport(type1);
  const s2 = type2 === GeomType.Mesh ? meshSupport : primitiveSupport(type2);
  if (!s1 || !s2) return null;
  const key = `${type1} ${type2} ${tol} ${iterations}`;
  let np = convexPairs.get(key);
  if (!np) {
    np = convexNarrowPhase(type1, s1, type2, s2, tol, iterations);
    if (type2 === GeomType.Mesh) np = freshMeshSearch(np);
    convexPairs.set(key, np);
  }
  return np;
}

/** MuJoCo's table has no function for plane-plane, plane-hfield and hfield-hfield: such pairs are skipped silently. */
function neverCollided(t1: number, t2: number): boolean {
  return (t1 === GeomType.Plane || t1 === GeomType.HField) && (t2 === GeomType.Plane || t2 === GeomType.HField);
}

/**
 * The narrow phase of geoms g1, g2 (type-ordered). A height field's (MuJoCo's mjc_ConvexHField for every convex
 * geom) is made per pair, as it holds the field's grid and the other geom's bounding radius.
 */
function pairNarrowPhase(m: Model, g1: number, g2: number, tol: number, iterations: number): NarrowPhase | null {
  const t1 = m.geomType[g1]!, t2 = m.geomType[g2]!;
  if (t1 !== GeomType.HField) return narrowPhaseFor(t1, t2, tol, iterations);
  const support = t2 === GeomType.Mesh ? meshSupport : primitiveSupport(t2);
  const h = geomHField(m, g1);
  if (!support || h < 0) return null;
  const f = hfieldSpec(m, h);
  const grid = { nrow: f.nrow, ncol: f.ncol, size: Float64Array.from(f.size), data: f.data };
  return hfieldNarrowPhase(grid, t2, m.geomRbound[g2]!, support, tol, iterations);
}

const TYPE_NAMES = ['plane', 'hfield', 'sphere', 'capsule', 'ellipsoid', 'cylinder', 'box', 'mesh'];

/** A geom as an error names it: type and name, or type and index. */
export function geomLabel(m: Model, g: number): string {
  const name = m.geomName[g];
  return `${TYPE_NAMES[m.geomType[g]!] ?? 'geom'} ${name ? `'${name}'` : `#${g}`}`;
}

/** MuJoCo's filterBodyPair: same weld, or one weld is the other's parent weld (neither is the world). */
function weldFiltered(m: Model, b1: number, b2: number): boolean {
  const w1 = m.bodyWeldid[b1]!, w2 = m.bodyWeldid[b2]!;
  if (w1 === w2) return true;
  const pw1 = m.bodyWeldid[m.bodyParentid[w1]!]!, pw2 = m.bodyWeldid[m.bodyParentid[w2]!]!;
  return w1 !== 0 && w2 !== 0 && (w1 === pw2 || w2 === pw1);
}

export function buildCollisionPlan(m: Model): CollisionPlan {
  const excluded = new Set<number>();
  for (let i = 0; i < m.nexclude; i++) excluded.add(m.excludeSignature[i]!);
  const selfCollision = m.opt.enableSelfCollision;
  const ccdTol = m.opt.ccdTolerance ?? CCD_TOLERANCE, ccdIter = m.opt.ccdIterations ?? CCD_ITERATIONS;
  const npair = m.npair ?? 0;
  // mj_collideGeomPair: a geom pair that is also an explicit pair is collided once, as the explicit one
  const explicit = new Set<number>();
  for (let k = 0; k < npair; k++) explicit.add(geomPairKey(m.pairGeom1![k]!, m.pairGeom2![k]!));

  // [geom1, geom2, explicit pair index or -1]
  const pairs: Array<[number, number, number]> = [];
  const unsupported: string[] = [];
  /** Appends explicit pair k (MuJoCo's mj_collideGeoms with ipair: no filters but the bounding spheres). */
  const addExplicit = (k: number) => {
    const [ga, gb] = typeOrdered(m, m.pairGeom1![k]!, m.pairGeom2![k]!);
    if (neverCollided(m.geomType[ga]!, m.geomType[gb]!)) return;
    if (pairNarrowPhase(m, ga, gb, ccdTol, ccdIter)) pairs.push([ga, gb, k]);
    else unsupported.push(`${geomLabel(m, ga)} - ${geomLabel(m, gb)} (<pair>)`);
  };
  // mj_collision merges the explicit pairs, sorted by body signature, into the body pairs: those of signatures up
  // to a body pair's come before its own geom pairs
  let next = 0;
  for (let b1 = 0; b1 < m.nbody; b1++) {
    const n1 = m.bodyGeomnum[b1]!;
    if (n1 === 0) continue;
    for (let b2 = b1 + 1; b2 < m.nbody; b2++) {
      const n2 = m.bodyGeomnum[b2]!;
      if (n2 === 0) continue;
      const signature = (b1 << 16) + b2;
      while (next < npair && m.pairSignature![next]! <= signature) addExplicit(next++);
      if (weldFiltered(m, b1, b2)) continue;
      if (excluded.has(signature)) continue;
      if (!selfCollision && b1 !== 0 && m.bodyRootid[b1] === m.bodyRootid[b2]) continue;
      const a1 = m.bodyGeomadr[b1]!, a2 = m.bodyGeomadr[b2]!;
      for (let g1 = a1; g1 < a1 + n1; g1++) {
        for (let g2 = a2; g2 < a2 + n2; g2++) {
          const ct1 = m.geomContype[g1]!, ca1 = m.geomConaffinity[g1]!;
          const ct2 = m.geomContype[g2]!, ca2 = m.geomConaffinity[g2]!;
          if (!(ct1 & ca2) && !(ct2 & ca1)) continue;
          if (explicit.has(geomPairKey(g1, g2))) continue;
          const [ga, gb] = typeOrdered(m, g1, g2);
          if (neverCollided(m.geomType[ga]!, m.geomType[gb]!)) continue;
          if (!pairNarrowPhase(m, ga, gb, ccdTol, ccdIter)) {
            unsupported.push(`${geomLabel(m, ga)} - ${geomLabel(m, gb)}`);
            continue;
          }
          pairs.push([ga, gb, -1]);
        }
      }
    }
  }
  while (next < npair) addExplicit(next++);

  const np = pairs.length;
  const plan: CollisionPlan = {
    npair: np,
    geom1: new Int32Array(np), geom2: new Int32Array(np), narrow: [],
    margin: new Float64Array(np), includemargin: new Float64Array(np), condim: new Int32Array(np),
    friction: new Float64Array(5 * np), solref: new Float64Array(2 * np), solimp: new Float64Array(5 * np),
    unsupported, selfCollision,
  };
  const params: PairParams = {
    condim: 0, gap: 0, friction: new Float64Array(5), solref: new Float64Array(2), solimp: new Float64Array(5),
  };
  pairs.forEach(([g1, g2, k], p) => {
    plan.geom1[p] = g1;
    plan.geom2[p] = g2;
    plan.narrow.push(pairNarrowPhase(m, g1, g2, ccdTol, ccdIter)!);
    let margin: number;
    if (k < 0) {
      mixParams(m, g1, g2, params);
      margin = Math.max(m.geomMargin[g1]!, m.geomMargin[g2]!);
    } else {
      explicitParams(m, k, params);
      margin = m.pairMargin![k]!;
    }
    plan.margin[p] = margin;
    plan.includemargin[p] = margin - params.gap;
    plan.condim[p] = params.condim;
    plan.friction.set(params.friction, 5 * p);
    plan.solref.set(params.solref, 2 * p);
    plan.solimp.set(params.solimp, 5 * p);
  });
  return plan;
}

/** The two geoms with the lower geom type first, as mj_collideGeoms orders them. */
function typeOrdered(m: Model, g1: number, g2: number): [number, number] {
  return m.geomType[g1]! > m.geomType[g2]! ? [g2, g1] : [g1, g2];
}

/** One key per unordered geom pair. */
function geomPairKey(g1: number, g2: number): number {
  return g1 < g2 ? g1 * 0x100000 + g2 : g2 * 0x100000 + g1;
}

const plans = new WeakMap<Model, CollisionPlan>();

/**
 * The model's plan, rebuilt if the self-collision switch changed since it was made. Geoms that can touch but
 * have no narrow phase here are refused: they would pass through each other (a stack of boxes sinks into
 * itself), and a warning before wrong motion is not enough.
 */
export function collisionPlan(m: Model): CollisionPlan {
  let plan = plans.get(m);
  if (!plan || plan.selfCollision !== m.opt.enableSelfCollision) {
    plan = buildCollisionPlan(m);
    if (plan.unsupported.length > 0) {
      const shown = plan.unsupported.slice(0, 5).join(', ') + (plan.unsupported.length > 5 ? `, ... (${plan.unsupported.length} in all)` : '');
      throw new Error(`sim-core collision: no collision code for ${plan.unsupported.length} geom pair(s) that can touch: ${shown}. ` +
        'Keep such geoms from colliding (contype/conaffinity, or <contact><exclude body1=... body2=...>), or use ' +
        'primitive geoms (plane, sphere, capsule, ellipsoid, cylinder, box).');
    }
    plans.set(m, plan);
  }
  return plan;
}
