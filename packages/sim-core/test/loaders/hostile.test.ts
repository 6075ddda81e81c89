/**
 * Hostile model files (issue 15): only regular files are read, includes cannot expand without bound, models
 * whose state would not fit are refused with the size before anything is allocated, and nothing recurses or
 * spreads in proportion to the model size. Each fails fast with one line.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bigHFieldModel, chainModel, freeBodiesModel, includeBombModel, includeOfModel, sharedMeshModel, urdfChainModel,
} from '../../../../test/support/hostile.js';
import * as gs from '../../src/index.js';
import { loadMJCF, loadURDF } from '../../src/loaders/index.js';

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

describe('asset and include sizes are capped before anything is allocated (issue 33)', () => {
  it('a 30000 x 30000 <hfield> is refused with file:line and the sample count, allocating nothing', () => {
    const rss0 = process.memoryUsage().rss;
    const e = errorOf(() => loadMJCF(bigHFieldModel(dir, 30000, 30000)));
    expect(e.message).toMatch(/hfield-30000x30000\.xml:3: <hfield>: a 30000 x 30000 height field has 900000000 samples, over the limit of 4194304$/);
    // 100000 x 100000 overflowed a typed array ("Invalid typed array length") before the cap
    expect(errorOf(() => loadMJCF(bigHFieldModel(dir, 100000, 100000))).message).toMatch(/:3: <hfield>: .*10000000000 samples/);
    // 900M samples would be 3.6 GB of float32 before the cap
    expect(process.memoryUsage().rss - rss0).toBeLessThan(200 * 1024 * 1024);
  });

  it('an hfield file whose header claims 30000 x 30000 is refused by the cap, not by its size', () => {
    const header = Buffer.alloc(8);
    header.writeInt32LE(30000, 0);
    header.writeInt32LE(30000, 4);
    writeFileSync(join(dir, 'big.hfield'), header);
    const file = join(dir, 'hfield-file.xml');
    writeFileSync(file, '<mujoco>\n<asset><hfield name="h" file="big.hfield" size="1 1 1 0.1"/></asset>\n<worldbody><geom type="hfield" hfield="h"/></worldbody>\n</mujoco>\n');
    expect(errorOf(() => loadMJCF(file)).message).toMatch(/hfield-file\.xml:2: <hfield>: a 30000 x 30000 height field has 900000000 samples, over the limit of 4194304 \(file 'big\.hfield'\)/);
  });

  it('an include past the XML limit (model and includes together) is refused at the <include>, before reading it', () => {
    const geoms = '<geom type="sphere" size="0.1"/>\n'.repeat(400);
    writeFileSync(join(dir, 'big-inc.xml'), `<mujoco><worldbody>${geoms}</worldbody></mujoco>\n`);
    const file = join(dir, 'includes-big.xml');
    writeFileSync(file, '<mujoco>\n<option timestep="0.01"/>\n<include file="big-inc.xml"/>\n</mujoco>\n');
    expect(loadMJCF(file, { limits: { xmlBytes: 64 * 1024 } }).model.ngeom).toBe(400);
    const e = errorOf(() => loadMJCF(file, { limits: { xmlBytes: 8 * 1024 } }));
    expect(e.message).toMatch(/includes-big\.xml:3: <include>: cannot read included file "big-inc\.xml" \(.*big-inc\.xml: cannot read: \d+ bytes, over the 8192 bytes limit on a model's XML \(the model file and its includes together; \d+ bytes read before it\)\)$/);
    expect(e.message).not.toContain('\n');
  });

  it('64 meshes sharing one OBJ read it once, and their vertices count against the total', () => {
    const file = sharedMeshModel(dir, 64);
    // the 8-vertex box.obj is ~150 bytes: 64 reads would pass 1 KiB, one does not
    const loaded = loadMJCF(file, { limits: { assetBytes: 1024 } });
    expect(loaded.model.ngeom).toBe(64);
    // 8 vertices a mesh: the 11th pushes the total past 80; mesh k is on line k + 3
    const e = errorOf(() => loadMJCF(file, { limits: { totalMeshVertices: 80 } }));
    expect(e.message).toMatch(/shared-mesh-64\.xml:13: <mesh>: mesh "m10": the model's meshes would have 88 vertices in all, over the limit of 80$/);
    expect(errorOf(() => loadMJCF(file, { limits: { meshVertices: 7 } })).message).toMatch(/:3: <mesh>: mesh "m0": 8 vertices, over the limit of 7 for one mesh$/);
  });

  it('a 5,000-link URDF chain loads (was "Maximum call stack size exceeded"), bodies in chain order', () => {
    const { model } = loadURDF(urdfChainModel(dir, 5000), { fixed: true });
    expect(model.nbody).toBe(5002);
    expect(model.njnt).toBe(5000);
    // body k + 1 (after the world and the root) hangs from body k
    expect(Array.from(model.bodyParentid.slice(0, 5))).toEqual([0, 0, 1, 2, 3]);
    expect(model.bodyParentid[5001]).toBe(5000);
  });
});
