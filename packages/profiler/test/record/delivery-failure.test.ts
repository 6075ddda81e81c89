/** A trace that could not be handed over (its file not written) is never silent: stop() rejects with why. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FakeClock, perfettoTraceHandler, profile, recordFunction, schedule, type TraceReadyHandler } from '../../src/record/index.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** Records `cycles` one-step cycles without awaiting step(), as a fast loop does; returns stop()'s outcome. */
async function run(onTraceReady: TraceReadyHandler, cycles: number): Promise<unknown> {
  vi.spyOn(process, 'emitWarning').mockImplementation((() => {}) as typeof process.emitWarning);
  const clock = new FakeClock();
  const prof = profile({ activities: ['cpu'], clock, schedule: schedule({ wait: 0, warmup: 0, active: 1, repeat: cycles }), onTraceReady });
  try {
    await prof.start();
    for (let i = 0; i < cycles + 1; i++) {
      { using _ = recordFunction('work'); clock.advance(1e6); }
      // Not awaited: the hand-over runs behind the loop (the `record` default without --sync).
      prof.step().catch(() => undefined);
    }
    await prof.stop();
    return 'resolved';
  } catch (e) {
    return e;
  } finally {
    vi.restoreAllMocks();
  }
}

describe('Profiler.stop() and failed hand-overs', () => {
  it('rejects with the file error when a handler cannot write (a folder path that is a file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-delivery-'));
    dirs.push(dir);
    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'x');
    const outcome = await run(async (p) => { await perfettoTraceHandler(join(notADir, 'traces'))(p); }, 1);
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/ENOTDIR|EEXIST/);
  });

  it('reports the first failure even when a later hand-over succeeded', async () => {
    let calls = 0;
    const outcome = await run(async () => { calls++; if (calls === 1) throw new Error('disk full on the first trace'); }, 2);
    expect(calls).toBe(2);
    expect((outcome as Error).message).toBe('disk full on the first trace');
  });

  it('resolves when every hand-over succeeded', async () => {
    expect(await run(async () => undefined, 2)).toBe('resolved');
  });
});
