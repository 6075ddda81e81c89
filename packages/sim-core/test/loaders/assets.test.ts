/** resolveAsset: a path that exists wins, else the bundled models, else a clear error. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASSETS_DIR, resolveAsset } from '../../src/loaders/index.js';

describe('resolveAsset', () => {
  it('finds the bundled models by their Genesis-style names', () => {
    expect(resolveAsset('xml/franka_emika_panda/panda.xml')).toBe(join(ASSETS_DIR, 'xml/franka_emika_panda/panda.xml'));
    expect(resolveAsset('urdf/anymal_c/urdf/anymal_c.urdf')).toBe(join(ASSETS_DIR, 'urdf/anymal_c/urdf/anymal_c.urdf'));
  });

  it('prefers a file that exists as given, relative or absolute', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-assets-'));
    const file = join(dir, 'panda.xml');
    writeFileSync(file, '<mujoco/>');
    expect(resolveAsset(file)).toBe(file);
    expect(resolveAsset(relative(process.cwd(), file))).toBe(file);
  });

  it('names the file when it is neither a path nor a bundled asset', () => {
    expect(() => resolveAsset('xml/nothing/here.xml')).toThrow(/^xml\/nothing\/here\.xml: no such file, and no bundled asset/);
  });
});
