/**
 * Hostile model files (issue 15): only regular files are read, includes cannot expand without bound, models
 * whose state would not fit are refused with the size before anything is allocated, and nothing recurses or
 * spreads in proportion to the model size. Each fails fast with one line.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainModel, freeBodiesModel, includeBombModel, includeOfModel } from '../../../../test/support/hostile.js';
import * as gs from '../../src/index.js';
import { loadMJCF } from '../../src/loaders/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => { await gs.init({ backend: 'cpu', precision: '32', loggingLevel: 'warning' }); });

function errorOf(fn: () => unknown): Error {
  try { fn(); } catch (e) { return e as Error; }
  throw new Error('expected an error');
}

async function buildError(file: string, nEnvs = 0): Promise<Error> {
  const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
  scene.addEntity(gs.morphs.MJCF({ file }));
  try { await scene.build({ nEnvs }); } catch (e) { return e as Error; }
  throw new Error('expected build to fail');
}

describe('model files that are not regular files', () => {
  it('an include of /dev/zero fails at once, naming the include and the device', () => {
    const e = errorOf(() => loadMJCF(includeOfModel(dir, 'zero.xml', '/dev/zero')));
    expect(e.message).toMatch(/zero\.xml:1: <include>: cannot read included file "\/dev\/zero" .*not a regular file/);
    expect(e.message).not.toContain('\n');
  });

  it('a FIFO (as the model or an include) fails at once instead of waiting for a writer', () => {
    const fifo = join(dir, 'pipe.xml');
    execFileSync('mkfifo', [fifo]);
    const t0 = performance.now();
    expect(errorOf(() => loadMJCF(fifo)).message).toMatch(/pipe\.xml: cannot read: not a regular file \(a FIFO\)/);
    expect(errorOf(() => loadMJCF(includeOfModel(dir, 'inc-fifo.xml', 'pipe.xml'))).message).toMatch(/<include>: .*a FIFO/);
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('a directory is refused', () => {
    expect(errorOf(() => loadMJCF(dir)).message).toMatch(/not a regular file \(a directory\)/);
  });
});

describe('includes are capped', () => {
  it('26 levels of 2-way includes stop at the include count cap instead of expanding 2^26 times', () => {
    const t0 = performance.now();
    const e = errorOf(() => loadMJCF(includeBombModel(dir, 26)));
    expect(e.message).toMatch(/inc-\d+\.xml:1: <include>: more than 1000 included files/);
    // Measured ~0.1 s; 10 s leaves room for a loaded machine while 2^26 expansions would take hours.
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});

describe('model size', () => {
  it('2,000 free bodies: build refuses, naming the size, before allocating (today: > 3 GB allocated)', async () => {
    const rss0 = process.memoryUsage().rss;
    const e = await buildError(freeBodiesModel(dir, 2000));
    expect(e.message).toMatch(/^the simulation would need at least [\d.]+ GiB \(1 env x [\d.]+ GiB.*nv 12000, with dense 12000 x 12000 matrices\), over the 4\.0 GiB limit/);
    // Nothing model-sized was allocated: 12000^2 floats alone would be 0.5 GB.
    expect(process.memoryUsage().rss - rss0).toBeLessThan(400 * 1024 * 1024);
  });

  it('20,000 free bodies load without a stack overflow and are refused by size', async () => {
    expect((await buildError(freeBodiesModel(dir, 20_000))).message).toMatch(/nv 120000, with dense/);
  }, 60_000);

  it('a 20,000-deep chain loads without a stack overflow and is refused by size', async () => {
    expect((await buildError(chainModel(dir, 20_000))).message).toMatch(/nv 20000, with dense/);
  }, 60_000);

  it('a billion envs of a small model are refused with the size, not "Array buffer allocation failed"', async () => {
    const e = await buildError(freeBodiesModel(dir, 1), 1_000_000_000);
    expect(e.message).toMatch(/1000000000 envs x [\d.]+ KiB/);
  });
});
