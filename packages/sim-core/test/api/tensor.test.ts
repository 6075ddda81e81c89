import { describe, expect, test } from 'vitest';
import { Tensor, formatShape, tensor, tile, zeros } from '../../src/api/tensor.js';

describe('gs.tensor / gs.tile / gs.Tensor', () => {
  test('nested arrays give shape, data and back the same nested arrays', () => {
    const t = tensor([[1, 2, 3], [4, 5, 6]]);
    expect(t.shape).toEqual([2, 3]);
    expect(t.ndim).toBe(2);
    expect(Array.from(t.data)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(t.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
    expect(t.dtype).toBe('float32');
  });

  test('typed arrays keep their dtype; flat data takes an explicit shape', () => {
    const t = tensor(new Float64Array([1, 2, 3, 4]), { shape: [2, 2] });
    expect(t.dtype).toBe('float64');
    expect(t.toArray()).toEqual([[1, 2], [3, 4]]);
    expect(() => tensor([1, 2, 3], { shape: [2, 2] })).toThrow('Cannot view 3 values as shape (2, 2)');
  });

  test('booleans make a bool tensor; ragged input is refused', () => {
    expect(tensor([true, false, true]).dtype).toBe('bool');
    expect(tensor([true, false]).toArray()).toEqual([true, false]);
    expect(() => tensor([[1, 2], [3]])).toThrow(/ragged/);
  });

  test('a scalar is a 0-d tensor', () => {
    const t = tensor(2.5);
    expect(t.shape).toEqual([]);
    expect(t.toArray()).toBe(2.5);
  });

  test('tile follows torch.tile: (9,) tiled by (B, 1) is (B, 9), rows equal', () => {
    const target = [0, 0, 0, -1, 0, 1, 0, 0.02, 0.02];
    const t = tile(tensor(target, { dtype: 'float64' }), [20, 1]);
    expect(t.shape).toEqual([20, 9]);
    const rows = t.toArray() as number[][];
    for (const r of rows) expect(r).toEqual(target);
    // reps shorter than ndim are padded with leading ones; each axis repeats whole blocks
    expect(tile(tensor([[1, 2], [3, 4]]), [2]).toArray()).toEqual([[1, 2, 1, 2], [3, 4, 3, 4]]);
    expect(tile(tensor([1, 2]), [2, 2]).toArray()).toEqual([[1, 2, 1, 2], [1, 2, 1, 2]]);
  });

  test('zeros, device and shape formatting as Python tuples', () => {
    const dev = { type: 'cpu' as const, name: 'test cpu' };
    const z = zeros([3, 2], { device: dev });
    expect(z.device).toBe(dev);
    expect(Array.from(z.data)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(tensor([1], { device: dev }).device).toBe(dev);
    expect(formatShape([5, 9])).toBe('(5, 9)');
    expect(formatShape([3])).toBe('(3,)');
    expect(formatShape([])).toBe('()');
    expect(() => new Tensor(new Float32Array(3), [2, 2])).toThrow('Tensor data has 3 elements, shape (2, 2) needs 4');
  });
});
