/** oclif's help conventions (`gsprof help <command>`) and a "did you mean" for a mistyped command. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof } from './support/cli.js';
import { REPO_ROOT } from './support/shared.js';

describe('help and typos', () => {
  beforeAll(() => ensureBuilt());

  it('`gsprof help record` prints the same usage as `gsprof record --help`', async () => {
    const viaHelp = await gsprof(['help', 'record']);
    const viaFlag = await gsprof(['record', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/USAGE\s+\$ gsprof record/);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('a typo names the closest command in one line, exit 2, whatever the arguments after it', async () => {
    for (const [typed, meant] of [['recrod', 'record'], ['sumary', 'summary'], ['comapre', 'compare']] as const) {
      const r = await gsprof([typed, 'out']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(`gsprof: ${typed}: not a gsprof command; did you mean '${meant}'?`);
    }
  });

  it('a word close to nothing points to the command list instead of guessing', async () => {
    const r = await gsprof(['xyzzy']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("gsprof: xyzzy: not a gsprof command; run 'gsprof help' for the commands");
  });

  it("docs/cli.md's usage blocks are what `gsprof <command> --help` prints (node scripts/cli-docs.mjs rewrites them)", () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/cli-docs.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
