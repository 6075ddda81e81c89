/** GSPROF_ADAPTER picks the adapter by index or by name; a wrong one names what exists. */
import { describe, expect, test } from 'vitest';
import { listAdapters, openGpu } from '../../src/gpu/adapter.js';
import { hasGpu } from './gpu-env.js';

describe.skipIf(!hasGpu)('adapter selection (GSPROF_ADAPTER)', () => {
  test('Dawn lists at least one adapter, by name', async () => {
    const names = await listAdapters();
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.length > 0)).toBe(true);
  });

  test('an index and a name select the same adapter', async () => {
    const [first] = await listAdapters();
    const byIndex = await openGpu('0');
    const byName = await openGpu(first!);
    try {
      expect(byName.info.description).toBe(byIndex.info.description);
      expect(byIndex.info.timestampQuery).toBe(true);
    } finally {
      byIndex.close();
      byName.close();
    }
  });

  test('an index past the end lists the adapters that exist', async () => {
    const n = (await listAdapters()).length;
    await expect(openGpu(String(n))).rejects.toThrow(new RegExp(`GSPROF_ADAPTER=${n} but only ${n} adapter\\(s\\) exist: 0: `));
  });

  test('an unknown name fails with one line naming what was asked, what exists and the fix', async () => {
    const [first] = await listAdapters();
    const err = await openGpu('no-such-gpu-xyz').then(() => null, (e: Error) => e);
    expect(err?.message).toContain(`GSPROF_ADAPTER=no-such-gpu-xyz matches no adapter; there are: 0: ${first}`);
    expect(err?.message).toMatch(/scripts\/install-webgpu-cpu\.sh/);
    expect(err?.message.split('\n')).toHaveLength(1);
  });
});
