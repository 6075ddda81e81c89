/**
 * Randomly generated kinematic trees (bodies with primitive geoms, orientation alternatives, hinge and slide
 * joints, explicit or geom-derived inertia) compiled by loadMJCF and by MuJoCo: every field must agree.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { loadMujocoXml } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from './compare.js';

const num = (lo: number, hi: number) => fc.double({ min: lo, max: hi, noNaN: true }).map((x) => Number(x.toFixed(4)));
const vec = (n: number, lo: number, hi: number) => fc.array(num(lo, hi), { minLength: n, maxLength: n }).map((v) => v.join(' '));

const orientation = fc.oneof(
  fc.constant(''),
  vec(4, -1, 1).filter((q) => q.split(' ').some((x) => Math.abs(Number(x)) > 0.1)).map((q) => ` quat="${q}"`),
  vec(3, -180, 180).map((e) => ` euler="${e}"`),
  fc.tuple(vec(3, -1, 1), num(-180, 180)).filter(([a]) => a.split(' ').some((x) => Math.abs(Number(x)) > 0.1)).map(([a, t]) => ` axisangle="${a} ${t}"`),
  vec(3, -1, 1).filter((z) => z.split(' ').some((x) => Math.abs(Number(x)) > 0.1)).map((z) => ` zaxis="${z}"`),
);

const geom = fc.oneof(
  fc.tuple(num(0.01, 0.2), vec(3, -0.2, 0.2), orientation).map(([r, p, o]) => `<geom type="sphere" size="${r}" pos="${p}"${o}/>`),
  fc.tuple(num(0.01, 0.1), num(0.01, 0.3), vec(3, -0.2, 0.2), orientation).map(([r, h, p, o]) => `<geom type="capsule" size="${r} ${h}" pos="${p}"${o}/>`),
  fc.tuple(num(0.01, 0.1), num(0.01, 0.3), vec(3, -0.2, 0.2), orientation).map(([r, h, p, o]) => `<geom type="cylinder" size="${r} ${h}" pos="${p}"${o} density="${500}"/>`),
  fc.tuple(vec(3, 0.01, 0.2), vec(3, -0.2, 0.2), orientation).map(([s, p, o]) => `<geom type="box" size="${s}" pos="${p}"${o}/>`),
  fc.tuple(num(0.01, 0.05), vec(3, -0.3, 0.3), vec(3, -0.3, 0.3)).filter(([, a, b]) => a !== b).map(([r, a, b]) => `<geom type="capsule" size="${r}" fromto="${a} ${b}" mass="0.7"/>`),
);

const joint = fc.oneof(
  fc.tuple(vec(3, -1, 1), num(-90, 0), num(1, 90)).filter(([a]) => a.split(' ').some((x) => Math.abs(Number(x)) > 0.1))
    .map(([a, lo, hi]) => `<joint type="hinge" axis="${a}" range="${lo} ${hi}" damping="0.1"/>`),
  fc.tuple(vec(3, -1, 1), vec(3, -0.1, 0.1)).filter(([a]) => a.split(' ').some((x) => Math.abs(Number(x)) > 0.1))
    .map(([a, p]) => `<joint type="slide" axis="${a}" pos="${p}" armature="0.01"/>`),
);

const inertial = fc.oneof(
  fc.constant(''),
  fc.tuple(num(0.1, 5), vec(3, -0.1, 0.1), num(0.1, 1), num(0.1, 1), num(0.1, 1), num(-0.05, 0.05), num(-0.05, 0.05), num(-0.05, 0.05))
    .map(([m, p, a, b, c, x, y, z]) => `<inertial mass="${m}" pos="${p}" fullinertia="${a + 1} ${b + 1} ${c + 1} ${x} ${y} ${z}"/>`),
);

interface Tree { geoms: string[]; joint: string; inertial: string; pos: string; orient: string; children: readonly Tree[] }
const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.record({
    geoms: fc.array(geom, { minLength: 1, maxLength: 3 }),
    joint,
    inertial,
    pos: vec(3, -0.5, 0.5),
    orient: orientation,
    children: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant([] as Tree[]), fc.array(tie('node'), { maxLength: 2 })),
  }),
})).node;

const render = (t: Tree): string =>
  `<body pos="${t.pos}"${t.orient}>${t.inertial}${t.joint}${t.geoms.join('')}${t.children.map(render).join('')}</body>`;

const dir = mkdtempSync(join(tmpdir(), 'gsprof-mjcf-rand-'));

describe('loadMJCF agrees with MuJoCo on random trees', () => {
  it('compiles every field as MuJoCo does', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(tree, { minLength: 1, maxLength: 2 }), async (roots) => {
        const xml = `<mujoco><worldbody>${roots.map(render).join('')}</worldbody></mujoco>`;
        const file = join(dir, `t${n++}.xml`);
        writeFileSync(file, xml);
        const { mj, m, d } = await loadMujocoXml(xml);
        const ref = mujocoModel(mj, m);
        // free MuJoCo's copies: hundreds of models would exhaust the WebAssembly heap
        d.delete();
        m.delete();
        const diff = diffModels(loadMJCF(file).model, ref);
        expect(diff, xml).toEqual([]);
      }),
      { numRuns: 40, seed: 20261202 },
    );
  });
});
