/** JSON for `--json`: plain (never coloured), bigint as a number when exact else a string, typed arrays as arrays. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
      if (v instanceof Map) return Object.fromEntries(v);
      if (typeof v === 'number' && !Number.isFinite(v)) return null;
      return v;
    },
    2,
  );
}
