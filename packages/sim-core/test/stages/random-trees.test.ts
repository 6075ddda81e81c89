/**
 * Random kinematic trees (random parents, frames, inertias, joint types and axes, springs, dampers,
 * armature) through the whole forward pipeline against MuJoCo: whatever the tree, the smooth quantities match.
 */
import { describe, expect, test } from 'vitest';
import { makeData } from '../../src/data/make-data.js';
import { forwardCpu } from '../../src/cpu/forward.js';
import { fullM } from '../helpers/mujoco.js';
import { envOf, expectClose, pairFromXml, randomState, rng, setEnvState, setMujocoState } from './oracle.js';

function randomTreeXml(seed: number): string {
  const r = rng(seed);
  const u = (a: number, b: number): number => a + (b - a) * r();
  const v3 = (s: number): string => [u(-s, s), u(-s, s), u(-s, s)].map((x) => x.toFixed(4)).join(' ');
  const quat = (): string => {
    const q = [u(-1, 1), u(-1, 1), u(-1, 1), u(-1, 1)];
    return q.map((x) => x.toFixed(4)).join(' ');
  };
  const nbody = 2 + Math.floor(r() * 6);
  const children: number[][] = Array.from({ length: nbody + 1 }, () => []);
  for (let b = 1; b <= nbody; b++) children[Math.floor(r() * b)]!.push(b);
  const body = (b: number, parent: number): string => {
    let joints = '';
    if (parent === 0 && r() < 0.3) {
      joints = `<joint type="free" damping="${u(0, 0.2).toFixed(3)}"/>`;
    } else {
      // MuJoCo accepts a ball joint only as a body's single joint
      const nj = Math.floor(r() * 3);
      for (let j = 0; j < nj; j++) {
        const t = r();
        const type = nj === 1 && t >= 0.8 ? 'ball' : t < 0.55 ? 'hinge' : 'slide';
        const axis = type === 'ball' ? '' : ` axis="${v3(1)}"`;
        joints += `<joint type="${type}"${axis} pos="${v3(0.05)}" damping="${u(0, 1).toFixed(3)}"` +
          ` stiffness="${u(0, 2).toFixed(3)}" armature="${u(0, 0.05).toFixed(3)}"/>`;
      }
    }
    // principal moments in [0.02, 0.04] always satisfy the triangle inequality MuJoCo checks
    const inertial = `<inertial pos="${v3(0.1)}" quat="${quat()}" mass="${u(0.2, 2).toFixed(3)}"` +
      ` diaginertia="${u(0.02, 0.04).toFixed(4)} ${u(0.02, 0.04).toFixed(4)} ${u(0.02, 0.04).toFixed(4)}"/>`;
    const kids = children[b]!.map((c) => body(c, b)).join('');
    return `<body pos="${v3(0.3)}" quat="${quat()}">${joints}${inertial}<geom type="sphere" size="0.02" contype="0" conaffinity="0"/>${kids}</body>`;
  };
  return `<mujoco><option gravity="${v3(10)}"/><worldbody>${children[0]!.map((c) => body(c, 0)).join('')}</worldbody></mujoco>`;
}

describe('random trees: forward pipeline against MuJoCo', () => {
  test('12 random trees, 2 envs each in one batch: poses, com frame, M, bias, passive, qacc_smooth to 1e-9', async () => {
    const typesSeen = new Set<number>();
    for (let seed = 1; seed <= 12; seed++) {
      const p = await pairFromXml(randomTreeXml(seed));
      p.model.jntType.forEach((t) => { typesSeen.add(t); });
      const d = makeData(p.model, 2, '64');
      const r = rng(100 + seed);
      const states = [randomState(p.model, r), randomState(p.model, r)];
      states.forEach((s, e) => { setEnvState(d, e, s); });
      forwardCpu(p.model, d, 0, 2);
      states.forEach((s, e) => {
        setMujocoState(p, s);
        p.mj.mj_forward(p.mm, p.md);
        const at = `tree ${seed} env ${e}`;
        expectClose(envOf(d, d.xpos, e), p.md.xpos, 1e-9, `${at} xpos`);
        expectClose(envOf(d, d.xmat, e), p.md.xmat, 1e-9, `${at} xmat`);
        expectClose(envOf(d, d.cinert, e), p.md.cinert, 1e-9, `${at} cinert`);
        expectClose(envOf(d, d.cdof, e), p.md.cdof, 1e-9, `${at} cdof`);
        expectClose(envOf(d, d.qM, e), fullM(p.mj, p.mm, p.md), 1e-9, `${at} qM`);
        expectClose(envOf(d, d.qfrcBias, e), p.md.qfrc_bias, 1e-9, `${at} qfrc_bias`);
        expectClose(envOf(d, d.qfrcPassive, e), p.md.qfrc_passive, 1e-9, `${at} qfrc_passive`);
        expectClose(envOf(d, d.qaccSmooth, e), p.md.qacc_smooth, 1e-8, `${at} qacc_smooth`);
      });
    }
    expect([...typesSeen].sort()).toEqual([0, 1, 2, 3]); // free, ball, slide and hinge all occurred
  });
});
