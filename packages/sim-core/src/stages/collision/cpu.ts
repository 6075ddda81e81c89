/**
 * Stage `collision` (MuJoCo's mj_collision): for each env, the candidate geom pairs of the model's collision
 * plan (contype/conaffinity, weld, exclude and self-collision filters, see collision/plan.ts) pass a bounding
 * sphere test (geom_rbound + margin; planes test the other geom's sphere against the half-space), then the
 * narrow phase writes contacts with MuJoCo's positions, frames and mixed parameters into d.contact*.
 * A pair whose contacts do not fit in d.maxContacts is dropped and sets errFlags bit 2.
 */
import { DIST, FRAME, MAX_CONTACT_PAIR, POS, STRIDE, makeFrame, makeGeomPose, type GeomPose } from '../../collision/contact.js';
import { meshHulls } from '../../collision/mesh.js';
import { collisionPlan } from '../../collision/plan.js';
import type { Data, Real } from '../../data/data.js';
import { GeomType, type Model } from '../../model/model.js';

export const ERR_OVERFLOW = 1 << 2;

interface Scratch { pose1: GeomPose; pose2: GeomPose; buf: Float64Array }
const scratches = new WeakMap<Data, Scratch>();

function scratchFor(d: Data): Scratch {
  let s = scratches.get(d);
  if (!s) {
    s = { pose1: makeGeomPose(), pose2: makeGeomPose(), buf: new Float64Array(MAX_CONTACT_PAIR * STRIDE) };
    scratches.set(d, s);
  }
  return s;
}

function gatherPose(m: Model, xpos: Real, xmat: Real, n: number, g: number, e: number, out: GeomPose): void {
  for (let k = 0; k < 3; k++) out.pos[k] = xpos[(3 * g + k) * n + e]!;
  for (let k = 0; k < 9; k++) out.mat[k] = xmat[(9 * g + k) * n + e]!;
  for (let k = 0; k < 3; k++) out.size[k] = m.geomSize[3 * g + k]!;
}

/** True when the bounding spheres (or sphere and plane half-space) are farther apart than the margin. */
function boundsApart(m: Model, g1: number, g2: number, p1: GeomPose, p2: GeomPose, margin: number): boolean {
  const r1 = m.geomRbound[g1]!, r2 = m.geomRbound[g2]!;
  if (r1 > 0 && r2 > 0) {
    const dx = p1.pos[0]! - p2.pos[0]!, dy = p1.pos[1]! - p2.pos[1]!, dz = p1.pos[2]! - p2.pos[2]!;
    const bound = r1 + r2 + margin;
    return dx * dx + dy * dy + dz * dz > bound * bound;
  }
  if (m.geomType[g1] === GeomType.Plane && r2 > 0) {
    const mt = p1.mat;
    const dist = (p2.pos[0]! - p1.pos[0]!) * mt[2]! + (p2.pos[1]! - p1.pos[1]!) * mt[5]! + (p2.pos[2]! - p1.pos[2]!) * mt[8]!;
    return dist > margin + r2;
  }
  return false;
}

export function collision(m: Model, d: Data, e0: number, e1: number): void {
  // Data's fields are read once here: inner loops then index local typed arrays
  const {
    nEnvs: n, ncon: nconOut, errFlags, geomXpos, geomXmat, contactDist, contactPos, contactFrame,
    contactIncludemargin, contactFriction, contactSolref, contactSolimp, contactGeom, contactDim, maxContacts: maxc,
  } = d;
  if (!m.opt.enableCollision) {
    for (let e = e0; e < e1; e++) nconOut[e] = 0;
    return;
  }
  const plan = collisionPlan(m);
  const { pose1, pose2, buf } = scratchFor(d);
  const hulls = meshHulls(m);
  const { geom1, geom2, narrow, margin: pairMargin, includemargin, condim, friction, solref, solimp } = plan;

  for (let e = e0; e < e1; e++) {
    let ncon = 0;
    for (let p = 0; p < plan.npair; p++) {
      const g1 = geom1[p]!, g2 = geom2[p]!;
      const margin = pairMargin[p]!;
      gatherPose(m, geomXpos, geomXmat, n, g1, e, pose1);
      gatherPose(m, geomXpos, geomXmat, n, g2, e, pose2);
      if (hulls) {
        pose1.mesh = hulls[g1];
        pose2.mesh = hulls[g2];
      }
      if (boundsApart(m, g1, g2, pose1, pose2, margin)) continue;
      const num = narrow[p]!(buf, pose1, pose2, margin);
      if (ncon + num > maxc) {
        // as MuJoCo when its contact buffer is full: this pair's contacts are dropped whole
        errFlags[e] = errFlags[e]! | ERR_OVERFLOW;
        continue;
      }
      for (let k = 0; k < num; k++) {
        const o = k * STRIDE;
        makeFrame(buf, o + FRAME);
        const c = ncon++;
        contactDist[c * n + e] = buf[o + DIST]!;
        for (let i = 0; i < 3; i++) contactPos[(3 * c + i) * n + e] = buf[o + POS + i]!;
        for (let i = 0; i < 9; i++) contactFrame[(9 * c + i) * n + e] = buf[o + FRAME + i]!;
        contactIncludemargin[c * n + e] = includemargin[p]!;
        for (let i = 0; i < 5; i++) contactFriction[(5 * c + i) * n + e] = friction[5 * p + i]!;
        for (let i = 0; i < 2; i++) contactSolref[(2 * c + i) * n + e] = solref[2 * p + i]!;
        for (let i = 0; i < 5; i++) contactSolimp[(5 * c + i) * n + e] = solimp[5 * p + i]!;
        contactGeom[(2 * c) * n + e] = g1;
        contactGeom[(2 * c + 1) * n + e] = g2;
        contactDim[c * n + e] = condim[p]!;
      }
    }
    nconOut[e] = ncon;
  }
}
