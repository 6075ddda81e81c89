/**
 * A Menagerie-style quadruped whose collision geometry is meshes (written here: an OBJ body, STL legs under
 * <compiler meshdir>, mesh defaults, visual duplicates that never collide, explicit inertials), dropped on a
 * floor: standing under position servos and collapsing without them, stepped by sim-core (f64 CPU, from its own
 * loader) and by MuJoCo 3.3 side by side.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { setConst } from '../../src/physics/setconst.js';
import { mujoco } from '../helpers/mujoco.js';
import { run, twin, type Pair } from './trajectory.js';

type V3 = [number, number, number];

/** Binary STL of triangles over vertices. */
function stl(vert: V3[], tris: number[][]): Buffer {
  const b = Buffer.alloc(84 + 50 * tris.length);
  b.writeUInt32LE(tris.length, 80);
  tris.forEach((t, i) => {
    t.forEach((v, j) => {
      vert[v]!.forEach((x, k) => { b.writeFloatLE(x, 84 + 50 * i + 12 * (j + 1) + 4 * k); });
    });
  });
  return b;
}

/** A square frustum along -z: half-width a at the top (z = 0), b at the bottom (z = -len); quads as two triangles. */
function frustum(a: number, b: number, len: number): Buffer {
  const v: V3[] = [[-a, -a, 0], [a, -a, 0], [a, a, 0], [-a, a, 0], [-b, -b, -len], [b, -b, -len], [b, b, -len], [-b, b, -len]];
  const quads = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]];
  return stl(v, quads.flatMap(([p, q, r, s]) => [[p!, q!, r!], [p!, r!, s!]]));
}

/** A square pyramid pointing down: a foot that touches the floor at its apex. */
function pyramid(a: number, len: number): Buffer {
  const v: V3[] = [[-a, -a, 0], [a, -a, 0], [a, a, 0], [-a, a, 0], [0, 0, -len]];
  return stl(v, [[0, 3, 2], [0, 2, 1], [0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]);
}

const BODY_OBJ = `# trunk
v -0.2 -0.12 -0.05
v 0.2 -0.12 -0.05
v 0.2 0.12 -0.05
v -0.2 0.12 -0.05
v -0.2 -0.12 0.05
v 0.2 -0.12 0.05
v 0.2 0.12 0.05
v -0.2 0.12 0.05
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
`;

const leg = (name: string, x: number, y: number) => `
      <body name="${name}_thigh" pos="${x} ${y} -0.05">
        <inertial pos="0 0 -0.1" mass="0.6" diaginertia="0.003 0.003 0.0005"/>
        <joint name="${name}_hip" class="leg"/>
        <geom class="visual" mesh="thigh"/><geom class="collision" mesh="thigh"/>
        <body name="${name}_shank" pos="0 0 -0.2">
          <inertial pos="0 0 -0.08" mass="0.3" diaginertia="0.0015 0.0015 0.0002"/>
          <joint name="${name}_knee" class="leg"/>
          <geom class="visual" mesh="shank"/><geom class="collision" mesh="shank"/>
        </body>
      </body>`;

const LEGS = ['fl', 'fr', 'hl', 'hr'];
const robot = (kp: number) => `<mujoco model="meshbot">
  <compiler angle="radian" meshdir="assets" autolimits="true"/>
  <option timestep="0.002"/>
  <default>
    <mesh scale="1 1 1"/>
    <default class="leg"><joint axis="0 1 0" damping="2" armature="0.01" range="-2 2"/><position kp="${kp}"/></default>
    <default class="visual"><geom type="mesh" contype="0" conaffinity="0" group="2"/></default>
    <default class="collision"><geom type="mesh" group="3"/></default>
  </default>
  <asset>
    <mesh file="trunk.obj"/>
    <mesh name="thigh" file="thigh.stl"/>
    <mesh name="shank" file="shank.stl"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 0.05"/>
    <body name="trunk" pos="0 0 0.5" euler="0.05 0.03 0">
      <freejoint/>
      <inertial pos="0 0 0" mass="6" diaginertia="0.03 0.08 0.1"/>
      <geom class="visual" mesh="trunk"/><geom class="collision" mesh="trunk"/>
      ${leg('fl', 0.15, 0.1)}${leg('fr', 0.15, -0.1)}${leg('hl', -0.15, 0.1)}${leg('hr', -0.15, -0.1)}
    </body>
  </worldbody>
  <actuator>
    ${LEGS.map((l) => `<position class="leg" joint="${l}_hip" name="${l}_hip"/><position class="leg" joint="${l}_knee" name="${l}_knee"/>`).join('\n    ')}
  </actuator>
  <keyframe><key name="stand" qpos="0 0 0.5 1 0 0 0 ${LEGS.map(() => '0.5 -1').join(' ')}" ctrl="${LEGS.map(() => '0.5 -1').join(' ')}"/></keyframe>
</mujoco>`;

let dirs = 0;

/** The robot (kp as given) in a folder here and in MuJoCo's file system; sim-core's model from its own loader. */
async function robotPair(kp: number): Promise<Pair> {
  const files: Record<string, string | Buffer> = {
    'meshbot.xml': robot(kp), 'assets/trunk.obj': BODY_OBJ, 'assets/thigh.stl': frustum(0.03, 0.02, 0.2), 'assets/shank.stl': pyramid(0.02, 0.2),
  };
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-meshbot-'));
  mkdirSync(join(dir, 'assets'));
  const mj = await mujoco();
  const vdir = `/meshbot${dirs++}`;
  mj.FS.mkdir(vdir);
  mj.FS.mkdir(`${vdir}/assets`);
  for (const [name, data] of Object.entries(files)) {
    writeFileSync(join(dir, name), data);
    mj.FS.writeFile(`${vdir}/${name}`, typeof data === 'string' ? data : new Uint8Array(data));
  }
  const m = mj.MjModel.loadFromXML(`${vdir}/meshbot.xml`);
  const d = new mj.MjData(m);
  mj.mj_resetDataKeyframe(m, d, 0);
  const ours = setConst(loadMJCF(join(dir, 'meshbot.xml')).model);
  return twin(mj, m, d, 2, (model) => Object.assign(model, ours));
}

function follow(p: Pair, steps: number): { worst: number; countMismatch: number; footSteps: number } {
  let countMismatch = 0, footSteps = 0;
  const n = p.d.nEnvs;
  const worst = run(p, steps, () => {
    for (let e = 0; e < n; e++) if (p.d.ncon[e] !== p.md.ncon) countMismatch++;
    if (p.md.ncon >= 4) footSteps++;
  });
  return { worst, countMismatch, footSteps };
}

describe('a quadruped with mesh collision geometry follows MuJoCo (f64 CPU)', () => {
  test('standing on its four feet under position servos, 800 steps', async () => {
    const p = await robotPair(60);
    // the visual duplicates are dropped: one collision mesh per link and the floor
    expect(p.model.ngeom).toBe(10);
    const r = follow(p, 800);
    expect(r.countMismatch).toBe(0);
    expect(r.footSteps).toBeGreaterThan(500);
    // it stands on its feet: the trunk at 0.396 m (its feet reach 0.35 m below the hips)
    expect(p.md.qpos[2] as number).toBeGreaterThan(0.38);
    // measured worst state error 3.3e-14 over the drop, landing and standing; 1e-11 leaves a margin of 300
    expect(r.worst).toBeLessThan(1e-11);
  });

  test('collapsing without servos (kp 0), 600 steps', async () => {
    const p = await robotPair(0);
    const r = follow(p, 600);
    expect(r.countMismatch).toBe(0);
    // it falls: the trunk comes down on its folded legs (0.255 m), thighs and shanks on the floor
    expect(p.md.qpos[2] as number).toBeLessThan(0.3);
    expect(p.md.ncon).toBeGreaterThan(4);
    // measured worst 1.2e-14; margin 800
    expect(r.worst).toBeLessThan(1e-11);
  });
});
