import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureLogs, logger } from '../src/index.js';

afterEach(() => { logger.level = 'info'; });

describe('@gsprof/log', () => {
  it('one channel per process: a second copy of the module finds the same logger', async () => {
    vi.resetModules(); // the next import evaluates the module again: a second copy
    const copy = await import('../src/index.js');
    expect(copy.logger).toBe(logger);
  });

  it('levels filter what reaches the sink; captureLogs restores the previous sink', () => {
    const logs = captureLogs();
    try {
      logger.level = 'warning';
      logger.info('hidden');
      logger.warning('shown');
      logger.error('also shown');
    } finally {
      logs.restore();
    }
    expect(logs.records.map((r) => [r.level, r.message])).toEqual([['warning', 'shown'], ['error', 'also shown']]);
  });
});
