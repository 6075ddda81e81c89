/**
 * Constraint islands, as MuJoCo 3.3 solves them (engine_island.c): kinematic trees joined by constraint rows
 * that touch both form an island; each island is solved on its own, with its own iteration count and its
 * tolerances scaled by its own inertia (sum of diag(M) over its dofs). Dofs of trees without rows keep
 * qacc_smooth. With one island this is the plain solve of the whole problem.
 */
import { newSolveStats, solvePrimal, type SolveStats } from './primal.js';
import { type Problem, makeProblem } from './problem.js';
import { ConstraintType } from './types.js';

export interface SolverSettings {
  newton: boolean; iterations: number; tolerance: number; lsTolerance: number; lsIterations: number;
}

export class Islands {
  private readonly root: Int32Array;       // union-find parent, indexed by tree (its root dof)
  private readonly label: Int32Array;      // per set root: -1 no rows, -2 rows, >= 0 island number
  private readonly islandOf: Int32Array;   // island of each tree, -1 without rows
  private readonly rowIsland: Int32Array;  // island of each row, -1 for an empty row
  private readonly dofs: Int32Array;
  private readonly rows: Int32Array;
  private readonly sub: Problem;
  private readonly subStats: SolveStats = newSolveStats();
  count = 0;

  constructor(readonly nv: number, maxEfc: number) {
    const v = Math.max(1, nv);
    this.root = new Int32Array(v);
    this.label = new Int32Array(v);
    this.islandOf = new Int32Array(v);
    this.rowIsland = new Int32Array(Math.max(1, maxEfc));
    this.dofs = new Int32Array(v);
    this.rows = new Int32Array(Math.max(1, maxEfc));
    this.sub = makeProblem(nv, maxEfc);
  }

  private find(t: number): number {
    const root = this.root;
    while (root[t] !== t) {
      root[t] = root[root[t]!]!;
      t = root[t]!;
    }
    return t;
  }

  /** Groups the trees of p's rows (p.rownnz/colind must be indexed); returns the number of islands. */
  discover(p: Problem, tree: Int32Array): number {
    const { nv, nefc, rownnz, colind } = p;
    const root = this.root, label = this.label, islandOf = this.islandOf;
    for (let t = 0; t < nv; t++) { root[t] = t; label[t] = -1; }
    // join the trees each row touches
    for (let r = 0; r < nefc; r++) {
      const o = r * nv, nnz = rownnz[r]!;
      if (nnz === 0) continue;
      const first = this.find(tree[colind[o]!]!);
      for (let k = 1; k < nnz; k++) {
        const t = this.find(tree[colind[o + k]!]!);
        if (t !== first) root[t] = first;
      }
    }
    // number the sets that hold rows, in the order of their lowest tree
    for (let r = 0; r < nefc; r++) if (rownnz[r]! > 0) label[this.find(tree[colind[r * nv]!]!)] = -2;
    let count = 0;
    for (let j = 0; j < nv; j++) {
      const t = tree[j]!;
      if (t !== j) continue;
      const set = this.find(t);
      if (label[set] === -2) label[set] = count++;
    }
    for (let j = 0; j < nv; j++) {
      const l = label[this.find(tree[j]!)]!;
      islandOf[tree[j]!] = l >= 0 ? l : -1;
    }
    // A row that touches no dof (a planar linkage's connect row across the plane) joins island 0: its zero
    // Jacobian changes nothing there, and it still gets the state and force it would get in one system.
    for (let r = 0; r < nefc; r++) this.rowIsland[r] = rownnz[r]! > 0 ? islandOf[tree[colind[r * nv]!]!]! : 0;
    // An elliptic contact is one cone: a frictional row with no dof (a body on a slide joint) stays with the rest.
    for (let r = 0; r < nefc; r++) {
      if (p.type[r] !== ConstraintType.ContactElliptic) continue;
      const dim = p.coneDim[r]!;
      let k = r;
      while (k < r + dim - 1 && rownnz[k] === 0) k++;
      for (let j = r; j < r + dim; j++) this.rowIsland[j] = this.rowIsland[k]!;
      r += dim - 1;
    }
    this.count = count;
    return count;
  }

  /**
   * Solves each island of p (after discover) from p.qacc, writing qacc, qfrcConstraint, force, state and
   * nactive back into p. Iterations are summed over the islands; the env is unconverged if any island is.
   */
  solveEach(p: Problem, tree: Int32Array, set: SolverSettings, stats: SolveStats): void {
    const { nv } = p;
    const q = this.sub, dofs = this.dofs, rows = this.rows;
    stats.iterations = 0;
    stats.lsIterations = 0;
    stats.improvement = 0;
    stats.notConverged = false;
    let nactive = 0;
    p.qfrcConstraint.fill(0);
    for (let k = 0; k < this.count; k++) {
      let qn = 0, qe = 0;
      for (let j = 0; j < nv; j++) if (this.islandOf[tree[j]!] === k) dofs[qn++] = j;
      for (let r = 0; r < p.nefc; r++) if (this.rowIsland[r] === k) rows[qe++] = r;
      q.nv = qn;
      q.nefc = qe;
      let inertia = 0;
      for (let a = 0; a < qn; a++) {
        const i = dofs[a]!;
        for (let b = 0; b < qn; b++) q.M[a * qn + b] = p.M[i * nv + dofs[b]!]!;
        inertia += p.M[i * nv + i]!;
        q.qfrcSmooth[a] = p.qfrcSmooth[i]!;
        q.qaccSmooth[a] = p.qaccSmooth[i]!;
        q.qacc[a] = p.qacc[i]!;
      }
      q.scale = 1 / inertia;
      for (let c = 0; c < qe; c++) {
        const r = rows[c]!;
        for (let b = 0; b < qn; b++) q.J[c * qn + b] = p.J[r * nv + dofs[b]!]!;
        q.D[c] = p.D[r]!; q.R[c] = p.R[r]!; q.aref[c] = p.aref[r]!; q.floss[c] = p.floss[r]!; q.type[c] = p.type[r]!;
        // an elliptic contact's rows share its bodies, hence its island, and stay consecutive
        q.coneMu[c] = p.coneMu[r]!; q.coneDim[c] = p.coneDim[r]!;
      }
      // the island's own sparsity pattern
      for (let c = 0; c < qe; c++) {
        let nnz = 0;
        for (let b = 0; b < qn; b++) if (q.J[c * qn + b] !== 0) q.colind[c * qn + nnz++] = b;
        q.rownnz[c] = nnz;
      }
      solvePrimal(q, set.newton, set.iterations, set.tolerance, set.lsTolerance, set.lsIterations, this.subStats);
      stats.iterations += this.subStats.iterations;
      stats.lsIterations += this.subStats.lsIterations;
      // The env is unconverged if any island is; its improvement is the largest an island stopped with.
      stats.notConverged ||= this.subStats.notConverged;
      stats.improvement = Math.max(stats.improvement, this.subStats.improvement);
      nactive += q.nactive;
      for (let a = 0; a < qn; a++) {
        p.qacc[dofs[a]!] = q.qacc[a]!;
        p.qfrcConstraint[dofs[a]!] = q.qfrcConstraint[a]!;
      }
      for (let c = 0; c < qe; c++) {
        p.force[rows[c]!] = q.force[c]!;
        p.state[rows[c]!] = q.state[c]!;
      }
    }
    p.nactive = nactive;
  }
}
