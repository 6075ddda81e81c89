/**
 * MuJoCo's mju_mulInertVec on scalars: out[o..o+6) = I * v, with I a spatial inertia in MuJoCo's 10-number
 * layout (xx, yy, zz, xy, xz, yz, mass * com offset (3), mass) and v a spatial vector [angular, linear].
 * Scalars in, one small output array out, so that the SoA stages keep loading their operands once per env.
 */
export function mulInertVec(
  out: Float64Array, o: number,
  i0: number, i1: number, i2: number, i3: number, i4: number, i5: number, i6: number, i7: number, i8: number, i9: number,
  v0: number, v1: number, v2: number, v3: number, v4: number, v5: number,
): void {
  out[o] = i0 * v0 + i3 * v1 + i4 * v2 - i8 * v4 + i7 * v5;
  out[o + 1] = i3 * v0 + i1 * v1 + i5 * v2 + i8 * v3 - i6 * v5;
  out[o + 2] = i4 * v0 + i5 * v1 + i2 * v2 - i7 * v3 + i6 * v4;
  out[o + 3] = i8 * v1 - i7 * v2 + i9 * v3;
  out[o + 4] = i6 * v2 - i8 * v0 + i9 * v4;
  out[o + 5] = i7 * v0 - i6 * v1 + i9 * v5;
}
