import { describe, expect, test } from 'vitest';
import { NOT_PARALLELIZED, parseEnvsIdx, parseIndex, readShape, shapeValues } from '../../src/api/indices.js';
import { tensor } from '../../src/api/tensor.js';

const all9 = parseIndex(undefined, 9, 'dofs_idx', 'n_dofs');

describe('envsIdx forms (Genesis: int, list, typed array, tensor, bool mask; bounds-checked here)', () => {
  test('every form selects the same envs', () => {
    const expected = [1, 5, 7];
    expect(Array.from(parseEnvsIdx([1, 5, 7], 20).idx)).toEqual(expected);
    expect(Array.from(parseEnvsIdx(Int32Array.of(1, 5, 7), 20).idx)).toEqual(expected);
    expect(Array.from(parseEnvsIdx(tensor([1, 5, 7]), 20).idx)).toEqual(expected);
    const mask = Array.from({ length: 20 }, (_, i) => expected.includes(i));
    expect(Array.from(parseEnvsIdx(mask, 20).idx)).toEqual(expected);
    expect(Array.from(parseEnvsIdx(tensor(mask), 20).idx)).toEqual(expected);
    expect(Array.from(parseEnvsIdx(undefined, 4).idx)).toEqual([0, 1, 2, 3]);
  });

  test('an int selects one env and drops the env dimension', () => {
    const s = parseEnvsIdx(3, 20);
    expect(Array.from(s.idx)).toEqual([3]);
    expect(s.scalar).toBe(true);
    expect(readShape(s, all9)).toEqual([9]);
    expect(readShape(parseEnvsIdx([3], 20), all9)).toEqual([1, 9]);
  });

  test('out-of-range, negative, fractional indices and wrong-length masks are rejected', () => {
    expect(() => parseEnvsIdx([1, 20], 20)).toThrow('`envs_idx` contains 20, out of range for n_envs=20.');
    expect(() => parseEnvsIdx(-1, 20)).toThrow('`envs_idx` contains -1, out of range for n_envs=20.');
    expect(() => parseEnvsIdx([1.5], 20)).toThrow('`envs_idx` must hold integers, got 1.5.');
    expect(() => parseEnvsIdx([true, false], 20)).toThrow('`envs_idx` is a bool mask of length 2, expecting n_envs=20.');
    expect(() => parseIndex([9], 9, 'dofs_idx', 'n_dofs')).toThrow('`dofs_idx` contains 9, out of range for n_dofs=9.');
  });

  test('an unbatched scene refuses envsIdx with Genesis message', () => {
    expect(() => parseEnvsIdx([0], 0)).toThrow(NOT_PARALLELIZED);
    expect(NOT_PARALLELIZED).toBe('`envs_idx` is not supported for non-parallelized scene.');
    const s = parseEnvsIdx(undefined, 0);
    expect(readShape(s, all9)).toEqual([9]);
  });
});

describe('values: ([len(envs_idx),] len(dofs_idx)) with (n_dofs,) broadcast', () => {
  const envs30k = parseEnvsIdx(undefined, 30000);
  test('a (n_dofs,) value broadcasts to every selected env', () => {
    const b = shapeValues([1, 2, 3, 4, 5, 6, 7, 8, 9], envs30k, all9, 'dofs_idx');
    expect(b.rows).toBe(1);
    const full = shapeValues(tensor(new Float64Array(3 * 9), { shape: [3, 9] }), parseEnvsIdx([1, 5, 7], 20), all9, 'dofs_idx');
    expect(full.rows).toBe(3);
    expect(shapeValues(0.5, envs30k, all9, 'dofs_idx').rows).toBe(1);
    // a bare typed array has no shape: len(envs) * len(dofs) values are rows, row-major
    expect(shapeValues(new Float32Array(27), parseEnvsIdx([1, 5, 7], 20), all9, 'dofs_idx').rows).toBe(3);
    // a tensor or nested list keeps its shape, so the same count is an error there
    expect(() => shapeValues(tensor(new Float32Array(27)), parseEnvsIdx([1, 5, 7], 20), all9, 'dofs_idx'))
      .toThrow('Invalid shape: (27,). Expecting 1D tensor of length 9 for 1-th index `dofs_idx`.');
  });

  test('Genesis shape error messages', () => {
    expect(() => shapeValues(tensor(new Float64Array(45), { shape: [5, 9] }), envs30k, all9, 'dofs_idx'))
      .toThrow('Invalid input shape: (5, 9). Dimension 0 consistent with len(envs_idx)=30000.');
    expect(() => shapeValues(tensor(new Float64Array(6), { shape: [2, 3] }), parseEnvsIdx([0, 1], 30000), all9, 'dofs_idx'))
      .toThrow('Invalid shape: (2, 3). Expecting 1D tensor of length 9 for 1-th index `dofs_idx`.');
    // unbatched: the dof index is still the 1-th index
    expect(() => shapeValues([[1, 2, 3], [4, 5, 6]], parseEnvsIdx(undefined, 0), all9, 'dofs_idx'))
      .toThrow('Invalid shape: (2, 3). Expecting 1D tensor of length 9 for 1-th index `dofs_idx`.');
    expect(() => shapeValues([1, 2, 3], envs30k, all9, 'dofs_idx'))
      .toThrow('Invalid shape: (3,). Expecting 1D tensor of length 9 for 1-th index `dofs_idx`.');
  });
});
