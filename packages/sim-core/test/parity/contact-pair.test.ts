/**
 * Explicit contact pairs (<contact><pair>) against MuJoCo (issue 13): the loader compiles MuJoCo's pair fields
 * (defaults from the pair's class, not its geoms), and the f64 pipeline collides each pair with its own
 * parameters, whatever contype/conaffinity and the weld filter say, skips the dynamic twin of a pair, and
 * orders contacts as mj_collision merges pairs into the body pairs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { setConst } from '../../src/physics/setconst.js';
import { disposeMujoco, loadMujoco, loadMujocoXml, type Mj } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from '../loaders/compare.js';
import {
  PAIR_DEFAULTS_QVEL, PAIR_DEFAULTS_XML, PAIR_ONLY_XML, PAIR_OVERRIDE_QVEL, PAIR_OVERRIDE_XML,
} from './pair-models.js';
import { run, twin, type Pair } from './trajectory.js';

function write(xml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-pair-'));
  writeFileSync(join(dir, 'm.xml'), xml);
  return join(dir, 'm.xml');
}

/** MuJoCo's contacts of the last step as [geom1, geom2, dim] rows, and sim-core's the same way. */
function contactRows(p: Pair): { ours: number[][]; theirs: number[][] } {
  const theirs: number[][] = [];
  for (let i = 0; i < (p.md.ncon as number); i++) {
    const c = p.md.contact.get(i) as Mj;
    theirs.push([c.geom1, c.geom2, c.dim]);
  }
  const ours: number[][] = [];
  for (let c = 0; c < p.d.ncon[0]!; c++) ours.push([p.d.contactGeom[2 * c]!, p.d.contactGeom[2 * c + 1]!, p.d.contactDim[c]!]);
  return { ours, theirs };
}

/** Steps both for `steps` steps; every step the contact lists (geoms, order, condim) must be MuJoCo's. */
async function follow(xml: string, qvel: number[], steps: number): Promise<{ worst: number; seen: Set<string> }> {
  const loaded = await loadMujocoXml(xml);
  try {
    qvel.forEach((v, k) => { loaded.d.qvel[k] = v; });
    // room for box-box face contacts (8 default contacts would overflow where the puck meets the box)
    const p = twin(loaded.mj, loaded.m, loaded.d, 1, undefined, '64', 24);
    const seen = new Set<string>();
    let mismatch = '';
    const worst = run(p, steps, (s) => {
      const { ours, theirs } = contactRows(p);
      if (!mismatch && JSON.stringify(ours) !== JSON.stringify(theirs)) {
        mismatch = `step ${s}: ${JSON.stringify(ours)} vs MuJoCo ${JSON.stringify(theirs)}`;
      }
      for (const r of theirs) seen.add(r.join(' '));
    });
    expect(mismatch).toBe('');
    return { worst, seen };
  } finally {
    disposeMujoco(loaded);
  }
}

describe('explicit contact pairs against MuJoCo', () => {
  it('the loader compiles the pair fields MuJoCo does (class defaults, partial friction, geom order, signature sort)', async () => {
    for (const xml of [PAIR_ONLY_XML, PAIR_OVERRIDE_XML, PAIR_DEFAULTS_XML]) {
      const file = write(xml);
      const loaded = await loadMujoco(file);
      try {
        const ours = setConst(loadMJCF(file).model);
        expect(ours.npair).toBeGreaterThan(0);
        expect(diffModels(ours, setConst(mujocoModel(loaded.mj, loaded.m)))).toEqual([]);
      } finally {
        disposeMujoco(loaded);
      }
    }
  });

  it('the loader refuses a nonzero solreffriction, a bad condim and an unknown geom, naming the line', () => {
    const withPair = (pair: string) => write(PAIR_ONLY_XML.replace('<pair geom1="ball" geom2="top"/>', pair));
    expect(() => loadMJCF(withPair('<pair geom1="ball" geom2="top" solreffriction="0.02 1"/>'))).toThrow(/m\.xml:\d+.*solreffriction/);
    expect(() => loadMJCF(withPair('<pair geom1="ball" geom2="top" condim="2"/>'))).toThrow(/invalid condim in contact pair/);
    expect(() => loadMJCF(withPair('<pair geom1="ball" geom2="table"/>'))).toThrow(/unknown geom "table"/);
    expect(() => loadMJCF(withPair('<pair geom1="ball"/>'))).toThrow(/geom2/);
  });

  it('a ball falls onto a table top that only a pair lets it touch, and rests there (f64, 400 steps)', async () => {
    const { worst, seen } = await follow(PAIR_ONLY_XML, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 400);
    // the ball-top pair (the sphere first by geom type, condim 3) and the capsule on the floor both made contacts
    expect([...seen]).toEqual(expect.arrayContaining(['2 1 3', '0 3 3']));
    // measured 6.2e-17 (f64, the same operations); 1e-9 is the bound, and fails on NaN
    expect(worst).toBeLessThanOrEqual(1e-9);
  });

  it('a pair overriding condim, friction, solref, solimp, margin and gap replaces the dynamic pair (f64, 400 steps)', async () => {
    const { worst, seen } = await follow(PAIR_OVERRIDE_XML, PAIR_OVERRIDE_QVEL, 400);
    // floor-box through the pair (condim 4), floor-puck dynamically (3), box-puck through the frictionless pair
    expect([...seen]).toEqual(expect.arrayContaining(['0 1 4', '0 2 3', '1 2 1']));
    // measured 5.7e-13 (with the dynamic box-floor pair collided too, or the geoms' mixed parameters, the contact
    // lists differ from the first touch); 1e-9 is the bound
    expect(worst).toBeLessThanOrEqual(1e-9);
  });

  it('pairs take condim 6, friction, solref and margin from their default classes (f64, 300 steps)', async () => {
    const { worst, seen } = await follow(PAIR_DEFAULTS_XML, PAIR_DEFAULTS_QVEL, 300);
    expect([...seen]).toEqual(expect.arrayContaining(['0 1 6', '0 2 6']));
    // measured 4.1e-15; 1e-9 is the bound
    expect(worst).toBeLessThanOrEqual(1e-9);
  });
});
