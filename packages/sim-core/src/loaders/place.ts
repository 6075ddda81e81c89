/**
 * Moves a loaded MJCF model as a whole to a pose in the world (gs.morphs.MJCF's pos / euler / quat): every
 * body and geom and site attached to the world, and the world pose of each free joint at the top of a tree
 * (its qpos0 and keyframe values), which MuJoCo stores as absolute coordinates.
 */
import { JointType, type Model } from '../model/model.js';
import { composePose, type Quat, type Vec3 } from '../model/frame-math.js';

const v3 = (a: Float64Array, i: number): Vec3 => [a[i]!, a[i + 1]!, a[i + 2]!];
const q4 = (a: Float64Array, i: number): Quat => [a[i]!, a[i + 1]!, a[i + 2]!, a[i + 3]!];

function moveFrame(pos: Readonly<Vec3>, quat: Readonly<Quat>, p: Float64Array, pi: number, q: Float64Array, qi: number): void {
  const out = composePose([...pos] as Vec3, [...quat] as Quat, v3(p, pi), q4(q, qi));
  p.set(out.pos, pi);
  q.set(out.quat, qi);
}

export function placeModel(m: Model, pos: Readonly<Vec3>, quat: Readonly<Quat>): void {
  if (pos.every((x) => x === 0) && quat[0] === 1 && quat[1] === 0 && quat[2] === 0 && quat[3] === 0) return;
  for (let b = 1; b < m.nbody; b++) if (m.bodyParentid[b] === 0) moveFrame(pos, quat, m.bodyPos, 3 * b, m.bodyQuat, 4 * b);
  for (let g = 0; g < m.ngeom; g++) if (m.geomBodyid[g] === 0) moveFrame(pos, quat, m.geomPos, 3 * g, m.geomQuat, 4 * g);
  for (let s = 0; s < m.nsite; s++) if (m.siteBodyid[s] === 0) moveFrame(pos, quat, m.sitePos, 3 * s, m.siteQuat, 4 * s);
  for (let j = 0; j < m.njnt; j++) {
    if (m.jntType[j] !== JointType.Free || m.bodyParentid[m.jntBodyid[j]!] !== 0) continue;
    const a = m.jntQposadr[j]!;
    moveFrame(pos, quat, m.qpos0, a, m.qpos0, a + 3);
    for (let k = 0; k < m.nkey; k++) moveFrame(pos, quat, m.keyQpos, k * m.nq + a, m.keyQpos, k * m.nq + a + 3);
  }
}
