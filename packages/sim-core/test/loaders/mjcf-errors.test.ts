/**
 * Bad MJCF input: every error is one line naming the file, the line and the element.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelFileError, loadMJCF } from '../../src/loaders/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-mjcf-err-'));

function write(name: string, xml: string): string {
  const file = join(dir, name);
  writeFileSync(file, xml);
  return file;
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('loadMJCF errors', () => {
  it('reports malformed XML with file and line', () => {
    const file = write('bad.xml', '<mujoco>\n  <worldbody>\n    <body name="a">\n  </worldbody>\n</mujoco>\n');
    const e = errorOf(() => loadMJCF(file));
    expect(e).toBeInstanceOf(ModelFileError);
    expect(e.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4: <\\w+>: malformed XML: unexpected close tag`));
    expect(e.message.split('\n')).toHaveLength(1);
  });

  it('names an unsupported element and its line', () => {
    const file = write('deformable.xml', '<mujoco>\n  <worldbody/>\n\n  <deformable>\n    <flex/>\n  </deformable>\n</mujoco>\n');
    expect(() => loadMJCF(file)).toThrow(`${file}:4: <deformable>: unsupported element`);
    const empty = write('tendon.xml', '<mujoco>\n  <worldbody/>\n\n  <tendon>\n    <fixed/>\n  </tendon>\n</mujoco>\n');
    expect(() => loadMJCF(empty)).toThrow(`${empty}:5: <fixed>: a fixed tendon needs at least one <joint>`);
  });

  it('names an unsupported element inside a body', () => {
    const file = write('composite.xml', '<mujoco>\n<worldbody>\n<body>\n<geom size="1"/>\n<composite type="grid"/>\n</body>\n</worldbody>\n</mujoco>');
    expect(() => loadMJCF(file)).toThrow(`${file}:5: <composite>: unsupported element`);
  });

  it('refuses the ccd flags that would change the general convex narrow phase (issue 13)', () => {
    // sim-core follows MuJoCo's default: native ccd, one contact per pair
    const libccd = write('libccd.xml', '<mujoco><option>\n<flag nativeccd="disable"/></option><worldbody/></mujoco>');
    expect(() => loadMJCF(libccd)).toThrow(`${libccd}:2: <flag>: unsupported flag setting nativeccd="disable"`);
    const multi = write('multiccd.xml', '<mujoco><option>\n<flag multiccd="enable"/></option><worldbody/></mujoco>');
    expect(() => loadMJCF(multi)).toThrow(`${multi}:2: <flag>: unsupported flag setting multiccd="enable"`);
    const tuned = write('ccd-opts.xml', '<mujoco><option ccd_tolerance="1e-8" ccd_iterations="50"/><worldbody/></mujoco>');
    expect(loadMJCF(tuned).model.opt).toMatchObject({ ccdTolerance: 1e-8, ccdIterations: 50 });
  });

  it('rejects unsupported attributes and values with their element', () => {
    const ball = write('ball.xml', '<mujoco><worldbody><body>\n<joint type="ball" range="5 30"/><geom size="1"/></body></worldbody></mujoco>');
    expect(() => loadMJCF(ball)).toThrow(`${ball}:2: <joint>: range[0] should be 0 in ball joint`);
    const ballMotor = write('ball-motor.xml', '<mujoco><worldbody><body><joint name="b" type="ball"/><geom size="1"/></body></worldbody><actuator><motor joint="b"/></actuator></mujoco>');
    // refused at load with file:line and element (issue 28; it used to load and fail only when the data was built)
    expect(() => loadMJCF(ballMotor)).toThrow(`${ballMotor}:1: <motor>: unsupported transmission on ball joint "b"`);
    const attr = write('attr.xml', '<mujoco><worldbody><body><geom size="1" shellinertia="true"/></body></worldbody></mujoco>');
    expect(() => loadMJCF(attr)).toThrow(`${attr}:1: <geom>: unsupported attribute 'shellinertia'`);
    const siteConnect = write('site-connect.xml', '<mujoco><worldbody><body name="b"><joint/><geom size="1"/><site name="s"/></body></worldbody><equality><connect site1="s" site2="s"/></equality></mujoco>');
    expect(() => loadMJCF(siteConnect)).toThrow(/site-connect\.xml:1: <connect>: unsupported connect between sites/);
    const siteWeld = write('site-weld.xml', '<mujoco><worldbody><body name="b"><joint/><geom size="1"/><site name="s"/></body></worldbody><equality><weld site1="s" site2="s"/></equality></mujoco>');
    expect(() => loadMJCF(siteWeld)).toThrow(/site-weld\.xml:1: <weld>: unsupported weld between sites/);
    const flex = write('flex.xml', '<mujoco><worldbody><body name="b"><joint/><geom size="1"/></body></worldbody><equality><flex flex="f"/></equality></mujoco>');
    expect(() => loadMJCF(flex)).toThrow(/flex\.xml:1: <flex>: unsupported element \(only joint, connect and weld equalities are supported\)/);
    const mesh = write('mesh.xml', '<mujoco><worldbody><body><geom type="mesh" mesh="m"/></body></worldbody></mujoco>');
    expect(() => loadMJCF(mesh)).toThrow(/mesh\.xml:1: <geom>: unknown mesh "m"/);
  });

  it('drops visual mesh geoms that have no physical effect, and says so', () => {
    const file = write('visual.xml', `<mujoco>
  <asset><mesh name="m" file="link.stl"/></asset>
  <default><default class="visual"><geom type="mesh" contype="0" conaffinity="0" group="2"/></default></default>
  <worldbody><body><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><joint/>
    <geom class="visual" mesh="m"/><geom type="sphere" size="0.1"/>
  </body></worldbody>
</mujoco>`);
    const loaded = loadMJCF(file);
    expect(loaded.model.ngeom).toBe(1);
    expect(loaded.log.join('\n')).toMatch(/ignored <geom> \(visual mesh geom: no contact, no mass; dropped; first at .*visual\.xml:5\)/);
    // without an explicit inertial the mesh defines the mass: its file is read (and here is missing)
    const massive = write('massive.xml', '<mujoco><asset><mesh name="m" file="link.stl"/></asset><worldbody><body><joint/>\n<geom type="mesh" mesh="m" contype="0" conaffinity="0"/></body></worldbody></mujoco>');
    expect(() => loadMJCF(massive)).toThrow(new RegExp(`${massive.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: <mesh>: cannot load mesh file "link\\.stl"`));
  });

  it('reports a missing include at the include element', () => {
    const file = write('main.xml', '<mujoco>\n  <include file="nothere.xml"/>\n</mujoco>\n');
    expect(() => loadMJCF(file)).toThrow(`${file}:2: <include>: cannot read included file "nothere.xml"`);
  });

  it('reports errors inside an included file at that file', () => {
    write('child.xml', '<mujoco>\n<worldbody>\n<body><geom type="sphere"/></body>\n</worldbody>\n</mujoco>');
    const file = write('parent.xml', '<mujoco><include file="child.xml"/></mujoco>');
    expect(() => loadMJCF(file)).toThrow(`${join(dir, 'child.xml')}:3: <geom>: size 0 must be positive`);
  });

  it('rejects references to unknown joints and classes', () => {
    const file = write('ref.xml', '<mujoco><worldbody><body><joint name="j"/><geom size="1"/></body></worldbody>\n<actuator><motor joint="k"/></actuator></mujoco>');
    expect(() => loadMJCF(file)).toThrow(`${file}:2: <motor>: unknown joint "k"`);
    const cls = write('cls.xml', '<mujoco><worldbody><body childclass="nope"><geom size="1"/></body></worldbody></mujoco>');
    expect(() => loadMJCF(cls)).toThrow(`${cls}:1: <body>: unknown default childclass "nope"`);
  });

  it('rejects a moving body without mass, as MuJoCo does', () => {
    const file = write('massless.xml', '<mujoco><worldbody>\n<body name="a"><joint/>\n<body name="b"><geom size="0.1" density="0"/></body></body></worldbody></mujoco>');
    expect(() => loadMJCF(file)).toThrow(`${file}:2: <body>: mass and inertia of moving bodies must be larger than 1e-15`);
    const welded = write('welded.xml', '<mujoco><worldbody><body><joint/><body><geom size="0.1"/></body></body></worldbody></mujoco>');
    expect(loadMJCF(welded).model.nbody).toBe(3);
  });

  it('reports an unreadable file', () => {
    expect(() => loadMJCF(join(dir, 'missing.xml'))).toThrow(/missing\.xml: cannot read: ENOENT/);
  });
});
