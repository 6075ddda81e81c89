/** Dense Cholesky H = L L' in place (lower triangle of a row-major n x n matrix), as mju_cholFactor. */

/** Factors the lower triangle of `a` in place; diagonal pivots below `mindiag` are raised to it. */
export function cholFactor(a: Float64Array, n: number, mindiag: number): void {
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let t = a[rj + j]!;
    for (let k = 0; k < j; k++) t -= a[rj + k]! * a[rj + k]!;
    if (t < mindiag) t = mindiag;
    const djj = Math.sqrt(t);
    a[rj + j] = djj;
    const inv = 1 / djj;
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let s = a[ri + j]!;
      for (let k = 0; k < j; k++) s -= a[ri + k]! * a[rj + k]!;
      a[ri + j] = s * inv;
    }
  }
}

/** x = (L L')^-1 b, with L from cholFactor; x and b may be the same array. */
export function cholSolve(x: Float64Array, l: Float64Array, b: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    const ri = i * n;
    for (let k = 0; k < i; k++) s -= l[ri + k]! * x[k]!;
    x[i] = s / l[ri + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
}

/**
 * L L' + x x' in place (MuJoCo's mju_cholUpdate with flg_plus): Givens-like sweeps down the columns where x
 * is non-zero; x is overwritten. Diagonals that would fall below MINVAL are raised to it.
 */
export function cholUpdate(l: Float64Array, x: Float64Array, n: number, minval: number): void {
  for (let k = 0; k < n; k++) {
    const xk = x[k]!;
    if (!xk) continue;
    const kk = k * n + k, lkk = l[kk]!;
    let t = lkk * lkk + xk * xk;
    if (t < minval) t = minval;
    const r = Math.sqrt(t);
    const c = r / lkk;
    const cinv = 1 / c;
    const s = xk / lkk;
    l[kk] = r;
    for (let i = k + 1; i < n; i++) l[i * n + k] = (l[i * n + k]! + s * x[i]!) * cinv;
    for (let i = k + 1; i < n; i++) x[i] = c * x[i]! - s * l[i * n + k]!;
  }
}
