/** setConst recomputes MuJoCo's mj_setConst constants from a Model that lacks them. */
import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import type { Model } from '../../src/model/model.js';
import { setConst } from '../../src/physics/setconst.js';
import { ZOO_XML } from './models.js';
import { expectClose, pairFromFile, pairFromXml } from './oracle.js';

/** The model with every setConst output wiped (as a loader would leave it). */
function wiped(m: Model): Model {
  return {
    ...m,
    bodySubtreemass: new Float64Array(m.nbody),
    bodyInvweight0: new Float64Array(2 * m.nbody),
    dofInvweight0: new Float64Array(m.nv),
    statMeaninertia: 0,
  };
}

function expectSameConstants(ours: Model, mj: Model): void {
  expectClose(ours.bodySubtreemass, mj.bodySubtreemass, 1e-12, 'body_subtreemass');
  expectClose(ours.bodyInvweight0, mj.bodyInvweight0, 1e-9, 'body_invweight0');
  expectClose(ours.dofInvweight0, mj.dofInvweight0, 1e-9, 'dof_invweight0');
  expectClose([ours.statMeaninertia], [mj.statMeaninertia], 1e-9, 'stat.meaninertia');
  expectClose(ours.actuatorBiasprm, mj.actuatorBiasprm, 1e-9, 'actuator_biasprm');
}

/** Adds bodies MuJoCo treats specially: a slide-only body on the world (body_simple = 2), a static body. */
const SIMPLE_XML = ZOO_XML.replace('</worldbody>', `
    <body name="slider" pos="0 1 0">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.1" mass="0.7"/>
    </body>
    <body name="static" pos="0 -1 0"><geom type="sphere" size="0.1"/></body>
  </worldbody>`).replace('</actuator>', `
    <position joint="hc" kp="20" dampratio="0.7"/>
  </actuator>`);

describe('setConst (mj_setConst)', () => {
  test('matches MuJoCo on every joint type, a slide-only body, a static body and a dampratio actuator', async () => {
    const p = await pairFromXml(SIMPLE_XML);
    const ours = setConst(wiped(p.model));
    expectSameConstants(ours, p.model);
    // the dampratio actuator really was converted (negative damping in biasprm[2])
    expect(p.model.actuatorBiasprm[10 * 4 + 2]).toBeLessThan(0);
    const u = 4;
    const wipedDamp = wiped(p.model);
    wipedDamp.actuatorBiasprm = Float64Array.from(p.model.actuatorBiasprm);
    wipedDamp.actuatorBiasprm[10 * u + 2] = 0.7;
    expectClose(setConst(wipedDamp).actuatorBiasprm, p.model.actuatorBiasprm, 1e-9, 'dampratio -> kv');
  });

  test.skipIf(!hasShared())('matches MuJoCo on the Menagerie Franka', async () => {
    const p = await pairFromFile(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    expectSameConstants(setConst(wiped(p.model)), p.model);
  });
});
