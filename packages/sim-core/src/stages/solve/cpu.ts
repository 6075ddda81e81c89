/**
 * Stage `solve` (MuJoCo's mj_fwdConstraint with mjSOL_NEWTON or mjSOL_CG): per env, gather the rows built
 * by make_constraint, warm-start from qaccWarmstart when that costs less than qacc_smooth (as MuJoCo), solve,
 * and write qacc, qfrcConstraint, efcForce and efcState. Each env iterates on its own and stops on its own
 * (per-env early exit). Envs without rows get qacc = qacc_smooth.
 *
 * As MuJoCo 3.3, the warm start is chosen for the whole env, then each constraint island (kinematic trees
 * linked by rows, see solver/islands.ts) is solved on its own with its tolerances scaled by its own inertia
 * (sum of diag(M) over its dofs); dofs of trees without rows keep qacc_smooth.
 *
 * Also fills d.timers (see solver/timers.ts): wall-clock ns per env, iterations, active rows, contacts,
 * line-search evaluations, rows, the last iteration's improvement and whether the solve stopped unconverged.
 */
import type { Data, Real } from '../../data/data.js';
import { ConeType, SolverType, type Model } from '../../model/model.js';
import { Islands, type SolverSettings } from '../../solver/islands.js';
import { newSolveStats, solvePrimal, type SolveStats } from '../../solver/primal.js';
import { type Problem, constraintCost, gaussCost, indexRows, jacMinusAref, makeProblem, mulM } from '../../solver/problem.js';
import { ConstraintType } from '../../solver/types.js';
import {
  TIMER_ACTIVE, TIMER_CONTACTS, TIMER_IMPROVEMENT, TIMER_ITERATIONS, TIMER_LS_ITERATIONS, TIMER_NEFC, TIMER_NOT_CONVERGED,
  TIMER_SOLVE_NS,
} from '../../solver/timers.js';

/** Envs gathered and scattered together (a cache line of f64). */
const BLOCK = 8;

interface Scratch {
  io: Io;
  block: Problem[];
  blockStats: SolveStats[];
  solveMs: Float64Array;  // BLOCK: per-env time inside the block
  islands: Islands;
  touched: Uint8Array;    // per tree (indexed by the tree's root dof)
  work: Float64Array;     // maxEfc: J qacc_smooth - aref
}
const scratches = new WeakMap<Data, Scratch>();
interface Trees { tree: Int32Array; count: number }
const trees = new WeakMap<Model, Trees>();

/** The kinematic tree of each dof, named by the tree's root dof (MuJoCo's dof_treeid up to renaming). */
function dofTrees(m: Model): Trees {
  let t = trees.get(m);
  if (!t) {
    const tree = new Int32Array(m.nv);
    let count = 0;
    for (let i = 0; i < m.nv; i++) {
      let r = i;
      while (m.dofParentid[r]! >= 0) r = m.dofParentid[r]!;
      tree[i] = r;
      if (r === i) count++;
    }
    t = { tree, count };
    trees.set(m, t);
  }
  return t;
}

function scratchFor(m: Model, d: Data): Scratch {
  let s = scratches.get(d);
  if (!s) {
    s = {
      io: {
        n: d.nEnvs, qM: d.qM, efcJ: d.efcJ, efcD: d.efcD, efcR: d.efcR, efcAref: d.efcAref,
        efcFrictionloss: d.efcFrictionloss, efcType: d.efcType, qfrcSmooth: d.qfrcSmooth, qaccSmooth: d.qaccSmooth,
        qaccWarmstart: d.qaccWarmstart, efcId: d.efcId, contactFriction: d.contactFriction,
      },
      block: Array.from({ length: BLOCK }, () => makeProblem(m.nv, d.maxEfc)),
      blockStats: Array.from({ length: BLOCK }, newSolveStats),
      solveMs: new Float64Array(BLOCK), islands: new Islands(m.nv, d.maxEfc), touched: new Uint8Array(Math.max(1, m.nv)),
      work: new Float64Array(Math.max(1, d.maxEfc)),
    };
    scratches.set(d, s);
  }
  return s;
}

/** Data arrays the stage reads and writes, bound once per stage call (inner loops index locals). */
interface Io {
  n: number;
  qM: Real; efcJ: Real; efcD: Real; efcR: Real; efcAref: Real; efcFrictionloss: Real; efcType: Int32Array;
  qfrcSmooth: Real; qaccSmooth: Real; qaccWarmstart: Real;
  efcId: Int32Array; contactFriction: Real;
}

/**
 * Copies the rows and dynamics of envs [eb, be) into their contiguous problems. The loops run env-innermost,
 * so each strided SoA element is read together with its block neighbours (one cache line, one page).
 */
function gatherBlock(m: Model, io: Io, nefcOf: Int32Array, eb: number, be: number, ps: Problem[]): number {
  const n = io.n, nv = m.nv;
  const { qM, efcJ, efcD, efcR, efcAref, efcFrictionloss, efcType, qfrcSmooth, qaccSmooth, qaccWarmstart } = io;
  let maxRows = 0;
  for (let e = eb; e < be; e++) {
    const nefc = nefcOf[e]!;
    ps[e - eb]!.nefc = nefc;
    if (nefc > maxRows) maxRows = nefc;
  }
  // M is symmetric: read the lower triangle and mirror it
  for (let i = 0; i < nv; i++) {
    for (let j = 0; j <= i; j++) {
      const base = (i * nv + j) * n;
      for (let e = eb; e < be; e++) {
        const v = qM[base + e]!, M = ps[e - eb]!.M;
        M[i * nv + j] = v;
        M[j * nv + i] = v;
      }
    }
  }
  for (let k = 0; k < maxRows * nv; k++) {
    const base = k * n;
    for (let e = eb; e < be; e++) {
      const p = ps[e - eb]!;
      if (k < p.nefc * nv) p.J[k] = efcJ[base + e]!;
    }
  }
  for (let r = 0; r < maxRows; r++) {
    const base = r * n;
    for (let e = eb; e < be; e++) {
      const p = ps[e - eb]!;
      if (r >= p.nefc) continue;
      const i = base + e;
      p.D[r] = efcD[i]!;
      p.R[r] = efcR[i]!;
      p.aref[r] = efcAref[i]!;
      p.floss[r] = efcFrictionloss[i]!;
      p.type[r] = efcType[i]!;
    }
  }
  for (let j = 0; j < nv; j++) {
    const base = j * n;
    for (let e = eb; e < be; e++) {
      const p = ps[e - eb]!;
      p.qfrcSmooth[j] = qfrcSmooth[base + e]!;
      p.qaccSmooth[j] = qaccSmooth[base + e]!;
      p.qacc[j] = qaccWarmstart[base + e]!;
    }
  }
  return maxRows;
}

/**
 * Each elliptic contact's dim (its run of rows with one efcId) and cone coefficients: the regularised mu,
 * friction[0] sqrt(R_1 / R_0) as mj_makeImpedance sets mjContact.mu (R_1 = R_0 / impratio), on its first row,
 * and friction[j-1] on row j.
 */
function gatherCones(io: Io, e: number, p: Problem): void {
  const n = io.n, { efcId, efcType, contactFriction, efcR } = io;
  for (let r = 0; r < p.nefc; r++) {
    if (p.type[r] !== ConstraintType.ContactElliptic) continue;
    const c = efcId[r * n + e]!;
    let dim = 1;
    while (r + dim < p.nefc && efcType[(r + dim) * n + e] === ConstraintType.ContactElliptic && efcId[(r + dim) * n + e] === c) dim++;
    p.coneDim[r] = dim;
    p.coneMu[r] = contactFriction[5 * c * n + e]! * Math.sqrt(efcR[(r + 1) * n + e]! / efcR[r * n + e]!);
    for (let j = 1; j < dim; j++) p.coneMu[r + j] = contactFriction[(5 * c + j - 1) * n + e]!;
    r += dim - 1;
  }
}

/**
 * Marks the trees touched by any row, sets p.scale from their inertia and resets the other dofs to
 * qacc_smooth; then keeps the warm start only if it costs no more than qacc_smooth.
 */
function warmstart(m: Model, s: Scratch, p: Problem): boolean {
  const { touched, work } = s;
  const nv = m.nv, { tree, count } = dofTrees(m);
  indexRows(p);
  let inertia = 0;
  if (count === 1) {
    // one tree (one robot): every row touches it
    touched[tree[0]!] = 1;
    for (let j = 0; j < nv; j++) inertia += p.M[j * nv + j]!;
  } else {
    touched.fill(0);
    for (let r = 0; r < p.nefc; r++) {
      const o = r * nv, nnz = p.rownnz[r]!;
      for (let k = 0; k < nnz; k++) touched[tree[p.colind[o + k]!]!] = 1;
    }
    for (let j = 0; j < nv; j++) if (touched[tree[j]!]) inertia += p.M[j * nv + j]!;
  }
  p.scale = 1 / inertia;

  // cost at the warm start (p.Ma and p.Jaref are kept for the solver if it stays the start)
  jacMinusAref(p, p.Jaref, p.qacc);
  mulM(p, p.Ma, p.qacc);
  const costWarm = constraintCost(p, p.Jaref) + gaussCost(p, p.Ma, p.qacc);
  jacMinusAref(p, work, p.qaccSmooth);
  const costSmooth = constraintCost(p, work);
  let keep = !(costWarm > costSmooth);
  if (!keep) for (let j = 0; j < nv; j++) p.qacc[j] = p.qaccSmooth[j]!;
  for (let j = 0; j < nv; j++) {
    if (!touched[tree[j]!] && p.qacc[j] !== p.qaccSmooth[j]) { p.qacc[j] = p.qaccSmooth[j]!; keep = false; }
  }
  return keep;
}

const settings: SolverSettings = { newton: true, iterations: 0, tolerance: 0, lsTolerance: 0, lsIterations: 0 };

export function solve(m: Model, d: Data, e0: number, e1: number): void {
  const n = d.nEnvs, nv = m.nv;
  const s = scratchFor(m, d);
  const opt = m.opt;
  const newton = opt.solver !== SolverType.CG;
  settings.newton = newton; settings.iterations = opt.iterations; settings.tolerance = opt.tolerance;
  settings.lsTolerance = opt.lsTolerance; settings.lsIterations = opt.lsIterations;
  const { tree, count } = dofTrees(m);

  const { nefc: nefcOf, qacc, qaccSmooth, qfrcConstraint, efcForce, efcState, timers: t, ncon } = d;
  const io = s.io;
  io.n = n; io.qM = d.qM; io.efcJ = d.efcJ; io.efcD = d.efcD; io.efcR = d.efcR; io.efcAref = d.efcAref;
  io.efcFrictionloss = d.efcFrictionloss; io.efcType = d.efcType; io.qfrcSmooth = d.qfrcSmooth;
  io.qaccSmooth = qaccSmooth; io.qaccWarmstart = d.qaccWarmstart; io.efcId = d.efcId;
  io.contactFriction = d.contactFriction;
  const elliptic = opt.cone === ConeType.Elliptic;
  const { block, blockStats, solveMs } = s;

  // clock reads are chained: each env's time is its own solve plus its share of its block's gather/scatter
  let tPrev = performance.now();
  for (let eb = e0; eb < e1; eb += BLOCK) {
    const be = Math.min(e1, eb + BLOCK), size = be - eb;
    const tBlock = tPrev;
    const maxRows = nv === 0 ? 0 : gatherBlock(m, io, nefcOf, eb, be, block);
    const tGathered = performance.now();
    tPrev = tGathered;
    for (let b = 0; b < size; b++) {
      const p = block[b]!, stats = blockStats[b]!;
      if (p.nefc === 0 || nv === 0) {
        stats.iterations = 0;
        stats.lsIterations = 0;
        stats.improvement = 0;
        stats.notConverged = false;
        p.nactive = 0;
      } else {
        if (elliptic) gatherCones(io, eb + b, p);
        const reuse = warmstart(m, s, p);
        if (count > 1 && s.islands.discover(p, tree) > 1) {
          s.islands.solveEach(p, tree, settings, stats);
        } else {
          solvePrimal(p, newton, opt.iterations, opt.tolerance, opt.lsTolerance, opt.lsIterations, stats, reuse);
        }
      }
      const tNow = performance.now();
      solveMs[b] = tNow - tPrev;
      tPrev = tNow;
    }

    // scatter, env-innermost like the gather
    for (let j = 0; j < nv; j++) {
      const base = j * n;
      for (let e = eb; e < be; e++) {
        const p = block[e - eb]!;
        if (p.nefc === 0) {
          qacc[base + e] = qaccSmooth[base + e]!;
          qfrcConstraint[base + e] = 0;
        } else {
          qacc[base + e] = p.qacc[j]!;
          qfrcConstraint[base + e] = p.qfrcConstraint[j]!;
        }
      }
    }
    for (let r = 0; r < maxRows; r++) {
      const base = r * n;
      for (let e = eb; e < be; e++) {
        const p = block[e - eb]!;
        if (r >= p.nefc) continue;
        efcForce[base + e] = p.force[r]!;
        efcState[base + e] = p.state[r]!;
      }
    }
    const tEnd = performance.now();
    const shared = ((tGathered - tBlock) + (tEnd - tPrev)) / size;
    tPrev = tEnd;
    for (let e = eb; e < be; e++) {
      const b = e - eb, p = block[b]!, stats = blockStats[b]!;
      t[TIMER_SOLVE_NS * n + e] = (solveMs[b]! + shared) * 1e6;
      t[TIMER_ITERATIONS * n + e] = stats.iterations;
      t[TIMER_ACTIVE * n + e] = p.nefc === 0 ? 0 : p.nactive;
      t[TIMER_CONTACTS * n + e] = ncon[e]!;
      t[TIMER_LS_ITERATIONS * n + e] = stats.lsIterations;
      t[TIMER_NEFC * n + e] = p.nefc;
      t[TIMER_IMPROVEMENT * n + e] = stats.improvement;
      t[TIMER_NOT_CONVERGED * n + e] = stats.notConverged ? 1 : 0;
    }
  }
}
