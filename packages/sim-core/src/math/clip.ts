/**
 * MuJoCo's mju_clip. Written as comparisons rather than Math.min/Math.max so that a NaN bound leaves x
 * unchanged and the sign of a zero x is kept, exactly as the C code behaves.
 */
export function clip(x: number, lo: number, hi: number): number {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
