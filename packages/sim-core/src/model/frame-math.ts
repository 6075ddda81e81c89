/**
 * Frame and inertia arithmetic used by the model compilers (MJCF, URDF, merging).
 *
 * These follow the conventions of MuJoCo's model compiler so that a model compiled here matches MuJoCo's
 * field for field: quaternions are (w, x, y, z), matrices are 3x3 row-major, symmetric inertia tensors are
 * packed as (xx, yy, zz, xy, xz, yz), and normalisation leaves vectors that are already unit length (within
 * 1e-14) untouched, as MuJoCo does, so that round-off matches too.
 */

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];
export type Mat3 = [number, number, number, number, number, number, number, number, number];
/** Symmetric 3x3 tensor packed as (xx, yy, zz, xy, xz, yz). */
export type Sym3 = [number, number, number, number, number, number];

/** mjEPS: the compiler's "too small" threshold. */
export const EPS = 1e-14;
/** mjMINVAL: the smallest mass or inertia treated as non-zero. */
export const MINVAL = 1e-15;


/** Normalises `v` in place and returns its previous length; a vector shorter than EPS is left alone (0). */
export function normalize(v: number[]): number {
  let sq = 0;
  for (const x of v) sq += x * x;
  if (sq < EPS) return 0;
  const n = Math.sqrt(sq);
  if (Math.abs(n - 1) > EPS) for (let i = 0; i < v.length; i++) v[i] = v[i]! / n;
  return n;
}

export function normalized<T extends number[]>(v: T): T {
  const c = v.slice() as T;
  normalize(c);
  return c;
}

export function quatToMat(q: Quat): Mat3 {
  const [w, x, y, z] = q;
  if (w === 1 && x === 0 && y === 0 && z === 0) return [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const ww = w * w, wx = w * x, wy = w * y, wz = w * z;
  const xx = x * x, xy = x * y, xz = x * z, yy = y * y, yz = y * z, zz = z * z;
  return [
    ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy),
    2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx),
    2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz,
  ];
}

/** Hamilton product a*b, normalised (unit quaternions drift otherwise). */
export function mulQuat(a: Quat, b: Quat): Quat {
  const r: Quat = [
    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
  ];
  normalize(r);
  return r;
}

export const conjugate = (q: Quat): Quat => [q[0], -q[1], -q[2], -q[3]];

export function mulMat(a: Mat3, b: Mat3): Mat3 {
  const r = new Array<number>(9).fill(0) as Mat3;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      r[3 * i + j] = a[3 * i]! * b[j]! + a[3 * i + 1]! * b[3 + j]! + a[3 * i + 2]! * b[6 + j]!;
    }
  }
  return r;
}

export const transpose = (m: Mat3): Mat3 => [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];

export const matVec = (m: Mat3, v: Vec3): Vec3 => [
  m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
  m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
  m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
];

/** Rotates `v` by the unit quaternion `q`. */
export function rotate(q: Quat, v: Vec3): Vec3 {
  if (v[0] === 0 && v[1] === 0 && v[2] === 0) return [0, 0, 0];
  if (q[0] === 1 && q[1] === 0 && q[2] === 0 && q[3] === 0) return [v[0], v[1], v[2]];
  const t: Vec3 = [
    q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
    q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
    q[0] * v[2] + q[1] * v[1] - q[2] * v[0],
  ];
  return [
    v[0] + 2 * (q[2] * t[2] - q[3] * t[1]),
    v[1] + 2 * (q[3] * t[0] - q[1] * t[2]),
    v[2] + 2 * (q[1] * t[1] - q[2] * t[0]),
  ];
}

export const add3 = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const cross3 = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];

/** Composes frames: the pose of `child` (given in `parent`'s frame) expressed in the frame `parent` lives in. */
export function composePose(parentPos: Vec3, parentQuat: Quat, childPos: Vec3, childQuat: Quat): { pos: Vec3; quat: Quat } {
  return { pos: add3(parentPos, matVec(quatToMat(parentQuat), childPos)), quat: mulQuat(parentQuat, childQuat) };
}

/** The minimal rotation taking +z to `vec` (MuJoCo's z2quat, used for fromto and zaxis). */
export function quatFromZ(vec: Vec3): Quat {
  const axis = cross3([0, 0, 1], vec);
  const s = normalize(axis);
  if (s < 1e-10) {
    axis[0] = 1; axis[1] = 0; axis[2] = 0;
  }
  const ang = Math.atan2(s, vec[2]);
  const sh = Math.sin(ang / 2);
  return [Math.cos(ang / 2), axis[0] * sh, axis[1] * sh, axis[2] * sh];
}

/** Quaternion of the rotation whose matrix has columns x, y, z. */
export function quatFromFrame(x: Vec3, y: Vec3, z: Vec3): Quat {
  const m = [x, y, z] as const; // m[c][r]
  let q: Quat;
  if (m[0][0] + m[1][1] + m[2][2] > 0) {
    const w = 0.5 * Math.sqrt(1 + m[0][0] + m[1][1] + m[2][2]);
    q = [w, 0.25 * (m[1][2] - m[2][1]) / w, 0.25 * (m[2][0] - m[0][2]) / w, 0.25 * (m[0][1] - m[1][0]) / w];
  } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
    const a = 0.5 * Math.sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
    q = [0.25 * (m[1][2] - m[2][1]) / a, a, 0.25 * (m[1][0] + m[0][1]) / a, 0.25 * (m[2][0] + m[0][2]) / a];
  } else if (m[1][1] > m[2][2]) {
    const b = 0.5 * Math.sqrt(1 - m[0][0] + m[1][1] - m[2][2]);
    q = [0.25 * (m[2][0] - m[0][2]) / b, 0.25 * (m[1][0] + m[0][1]) / b, b, 0.25 * (m[2][1] + m[1][2]) / b];
  } else {
    const c = 0.5 * Math.sqrt(1 - m[0][0] - m[1][1] + m[2][2]);
    q = [0.25 * (m[0][1] - m[1][0]) / c, 0.25 * (m[2][0] + m[0][2]) / c, 0.25 * (m[2][1] + m[1][2]) / c, c];
  }
  normalize(q);
  return q;
}

/** Axis-angle (angle in radians) to quaternion; the axis is normalised first. */
export function quatFromAxisAngle(axis: Vec3, angle: number): Quat | null {
  const a: Vec3 = [axis[0], axis[1], axis[2]];
  if (normalize(a) < EPS) return null;
  const s = Math.sin(angle / 2);
  return [Math.cos(angle / 2), s * a[0], s * a[1], s * a[2]];
}

/**
 * Euler angles (radians) applied in `seq` order: lowercase letters rotate about the moving (intrinsic) axes,
 * uppercase about the fixed (extrinsic) ones, as in MJCF's compiler/eulerseq.
 */
export function quatFromEuler(euler: Vec3, seq: string): Quat {
  let q: Quat = [1, 0, 0, 0];
  for (let i = 0; i < 3; i++) {
    const half = euler[i as 0 | 1 | 2] / 2;
    const r: Quat = [Math.cos(half), 0, 0, 0];
    const axis = seq[i]!.toLowerCase();
    r[axis === 'x' ? 1 : axis === 'y' ? 2 : 3] = Math.sin(half);
    q = seq[i] === axis ? mulQuat(q, r) : mulQuat(r, q);
  }
  normalize(q);
  return q;
}

/** URDF rpy (fixed-axis roll about x, then pitch about y, then yaw about z) to quaternion. */
export function quatFromRpy(rpy: Vec3): Quat {
  return quatFromEuler(rpy, 'XYZ');
}

/**
 * Eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations accumulated in a quaternion, eigenvalues
 * sorted in decreasing order. Same iteration, pivoting and sorting rule as MuJoCo's compiler, so the principal
 * frame it returns (including the signs of its axes) is the one MuJoCo stores.
 */
export function eigSym3(mat: Mat3): { values: Vec3; quat: Quat } {
  const tol = 1e-12;
  let quat: Quat = [1, 0, 0, 0];
  const values: Vec3 = [0, 0, 0];
  for (let iter = 0; iter < 500; iter++) {
    const v = quatToMat(quat);
    const d = mulMat(mulMat(transpose(v), mat), v);
    values[0] = d[0]; values[1] = d[4]; values[2] = d[8];

    // the largest off-diagonal element picks the plane of the next rotation
    let rk: number, ck: number, rotk: number;
    if (Math.abs(d[1]) > Math.abs(d[2]) && Math.abs(d[1]) > Math.abs(d[5])) {
      rk = 0; ck = 1; rotk = 2;
    } else if (Math.abs(d[2]) > Math.abs(d[5])) {
      rk = 0; ck = 2; rotk = 1;
    } else {
      rk = 1; ck = 2; rotk = 0;
    }
    const off = d[3 * rk + ck]!;
    if (Math.abs(off) < tol) break;

    const tau = (d[4 * ck]! - d[4 * rk]!) / (2 * off);
    const t = tau >= 0 ? 1 / (tau + Math.sqrt(1 + tau * tau)) : -1 / (-tau + Math.sqrt(1 + tau * tau));
    const c = 1 / Math.sqrt(1 + t * t);
    if (c > 1 - tol) break;

    const r: Quat = [0, 0, 0, 0];
    let s = tau >= 0 ? -Math.sqrt(0.5 - 0.5 * c) : Math.sqrt(0.5 - 0.5 * c);
    if (rotk === 1) s = -s;
    r[rotk + 1] = s;
    r[0] = Math.sqrt(1 - s * s);
    normalize(r);
    quat = mulQuat(quat, r);
  }

  // bubble sort (pairs 0-1, 1-2, 0-1), rotating the frame by 90 degrees for each swap
  for (let j = 0; j < 3; j++) {
    const j1 = j % 2;
    if (values[j1]! + tol < values[j1 + 1]!) {
      const tmp = values[j1]!;
      values[j1] = values[j1 + 1]!;
      values[j1 + 1] = tmp;
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: MuJoCo's literal, kept for bit-identical frames
      const r: Quat = [0.707106781186548, 0, 0, 0];
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: as above
      r[((j1 + 2) % 3) + 1] = 0.707106781186548;
      quat = mulQuat(quat, r);
    }
  }
  return { values, quat };
}

export function symToMat(s: Sym3): Mat3 {
  return [s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2]];
}

/** Principal moments and frame of a full inertia tensor; throws the reason when it is not positive definite. */
export function principalInertia(full: Sym3): { inertia: Vec3; quat: Quat } {
  const { values, quat } = eigSym3(symToMat(full));
  if (values[2] < EPS) throw new Error('inertia must have positive eigenvalues');
  return { inertia: values, quat };
}

/** Inertia tensor R*diag(I)*R^T of principal moments `diag` in the frame `quat`, packed as Sym3. */
export function rotatedInertia(diag: Vec3, quat: Quat): Sym3 {
  const m = quatToMat(quat);
  const t = [
    m[0] * diag[0], m[3] * diag[0], m[6] * diag[0],
    m[1] * diag[1], m[4] * diag[1], m[7] * diag[1],
    m[2] * diag[2], m[5] * diag[2], m[8] * diag[2],
  ] as Mat3;
  return [
    m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
    m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
    m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
    m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
    m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
    m[3] * t[2] + m[4] * t[5] + m[5] * t[8],
  ];
}

/** Parallel-axis term: the inertia of a point `mass` at offset `d` about the origin. */
export function pointInertia(mass: number, d: Vec3): Sym3 {
  return [
    mass * (d[1] * d[1] + d[2] * d[2]),
    mass * (d[0] * d[0] + d[2] * d[2]),
    mass * (d[0] * d[0] + d[1] * d[1]),
    -mass * d[0] * d[1],
    -mass * d[0] * d[2],
    -mass * d[1] * d[2],
  ];
}

export function addSym(a: Sym3, b: Sym3): Sym3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5]];
}

/**
 * Combines rigid parts (mass, centre of mass, principal moments and frame, all in one common frame) into one
 * body's inertial: total mass, combined centre of mass and principal inertia about it. Parts with mass <= EPS
 * are ignored. Returns null when nothing has mass.
 */
export function combineInertials(
  parts: { mass: number; pos: Vec3; quat: Quat; inertia: Vec3 }[],
): { mass: number; pos: Vec3; quat: Quat; inertia: Vec3 } | null {
  const sel = parts.filter((p) => p.mass > EPS);
  if (sel.length === 0) return null;
  if (sel.length === 1) {
    const p = sel[0]!;
    return { mass: p.mass, pos: [...p.pos], quat: [...p.quat], inertia: [...p.inertia] };
  }
  let mass = 0;
  const com: Vec3 = [0, 0, 0];
  for (const p of sel) {
    mass += p.mass;
    com[0] += p.mass * p.pos[0];
    com[1] += p.mass * p.pos[1];
    com[2] += p.mass * p.pos[2];
  }
  const pos: Vec3 = [com[0] / mass, com[1] / mass, com[2] / mass];
  let total: Sym3 = [0, 0, 0, 0, 0, 0];
  for (const p of sel) {
    const d: Vec3 = [p.pos[0] - pos[0], p.pos[1] - pos[1], p.pos[2] - pos[2]];
    total = addSym(addSym(total, rotatedInertia(p.inertia, p.quat)), pointInertia(p.mass, d));
  }
  const { inertia, quat } = principalInertia(total);
  return { mass, pos, quat, inertia };
}

/** R*S*R^T for a symmetric tensor S and the rotation of `quat`. */
export function rotateSym(s: Sym3, quat: Quat): Sym3 {
  const r = quatToMat(quat);
  const m = mulMat(mulMat(r, symToMat(s)), transpose(r));
  return [m[0], m[4], m[8], (m[1] + m[3]) / 2, (m[2] + m[6]) / 2, (m[5] + m[7]) / 2];
}
