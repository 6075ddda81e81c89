/**
 * The `stats` table against trace_processor_shell's (the reference, in ../shared/tools): same columns; every stat
 * gsprof counts under trace_processor's name has its severity and source, and a gsprof-only stat is one that
 * trace_processor lacks; on a flawed JSON both count the same problems.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { openTrace } from '../../src/index.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

const TP = hasShared() ? sharedPath('tools', 'trace_processor_shell') : '';
const haveTp = TP !== '' && existsSync(TP);
if (!haveTp) {
  if (process.env.CI === 'true') throw new Error(`CI=true but trace_processor_shell is missing: ${TP}`);
  console.warn('skipping: trace_processor_shell not found in ../shared/tools');
}

/** trace_processor's answer to `sql` on `trace`, as rows of its CSV (the fields here hold no comma or quote). */
function tp(trace: string, sql: string): string[][] {
  const q = files.write(`q${Math.random().toString(36).slice(2)}.sql`, sql);
  const out = execFileSync(TP, ['-q', q, trace], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim().split('\n').slice(1).map((l) => l.split(',').map((c) => c.replace(/^"|"$/g, '')));
}

// One flawed event of each kind trace_processor counts (a counter with a string value and an async event
// without an id: json_parser_failure; a flow without an id: flow_invalid_id; a flow with no slice at its ts:
// flow_no_enclosing_slice), beside good ones.
const FLAWED = JSON.stringify({ traceEvents: [
  { ph: 'X', name: 'a', pid: 1, tid: 1, ts: 1, dur: 2 },
  { ph: 'C', name: 'c', pid: 1, ts: 3, args: { v: 'abc' } },
  { ph: 'b', name: 'async', cat: 'x', pid: 1, tid: 1, ts: 3 },
  { ph: 's', name: 'f', cat: 'c', pid: 1, tid: 3, ts: 9 },
  { ph: 's', name: 'g', cat: 'c', pid: 1, tid: 3, ts: 20, id: 5 },
  { ph: 'f', name: 'g', cat: 'c', pid: 1, tid: 3, ts: 30, id: 5, bp: 'e' },
] });

describe('stats table', () => {
  it('has trace_processor columns, a row per stat, and counts the problems of a flawed JSON', async () => {
    const path = files.write('flawed.json', FLAWED);
    const db = await openTrace(path);
    try {
      const all = await db.query('select * from stats');
      expect(all.columns).toEqual(['name', 'idx', 'severity', 'source', 'value', 'description']);
      expect(all.rows.length).toBeGreaterThan(30);
      const counted = (await db.query('select name, value from stats where value > 0 order by name')).rows;
      expect(counted).toEqual([
        { name: 'flow_invalid_id', value: 1 }, { name: 'flow_no_enclosing_slice', value: 2 }, { name: 'json_parser_failure', value: 2 },
      ]);
      expect(await db.problemStats()).toEqual(counted);
      if (haveTp) {
        const ref = tp(path, "select name, value from stats where value > 0 and source = 'trace' order by name");
        expect(ref.map(([name, value]) => ({ name, value: Number(value) }))).toEqual(counted);
      }
    } finally {
      await db.close();
    }
  });

  it.skipIf(!haveTp)('uses trace_processor names, severities and sources; gsprof-only stats are ones it lacks', async () => {
    const ref = new Map(tp(files.write('empty.json', '{"traceEvents":[]}'), 'select name, severity, source from stats')
      .map(([name, severity, source]) => [name!, `${severity} ${source}`]));
    expect(ref.size).toBeGreaterThan(100);
    const db = await openTrace(files.write('one.json', '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]'));
    try {
      const ours = (await db.query('select name, severity, source, description from stats')).rows as
        { name: string; severity: string; source: string; description: string }[];
      for (const s of ours) {
        if (s.description.includes('gsprof only')) expect(ref.has(s.name), `${s.name} is trace_processor's`).toBe(false);
        else expect(`${s.severity} ${s.source}`, s.name).toBe(ref.get(s.name));
      }
    } finally {
      await db.close();
    }
  });
});
