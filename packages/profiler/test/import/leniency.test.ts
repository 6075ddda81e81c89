/**
 * Lenient import (the default, as Perfetto): what can be read is loaded and each flaw is counted in
 * `stats` table; `strict` turns every such flaw into a TraceFormatError.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openTrace, TraceFormatError } from '../../src/index.js';
import { trace } from './support/proto-writer.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
afterAll(() => files.cleanup());

const ev = (name: string, ts: number) => `{"ph":"X","name":"${name}","pid":1,"tid":1,"ts":${ts},"dur":1}`;

async function load(path: string): Promise<{ names: string[]; stats: Record<string, number> }> {
  const db = await openTrace(path);
  try {
    const names = (await db.query('select name from slice order by ts')).rows.map((r) => String(r.name));
    const stats: Record<string, number> = {};
    for (const r of (await db.query('select name, value from stats where value > 0')).rows) stats[String(r.name)] = Number(r.value);
    return { names, stats };
  } finally {
    await db.close();
  }
}

async function strictError(path: string): Promise<unknown> {
  return openTrace(path, { strict: true }).then(async (db) => { await db.close(); return null; }, (e: unknown) => e);
}

describe('lenient import', () => {
  it('keeps events with a trailing comma in args or a raw control character in a string (as Perfetto), counted', async () => {
    const path = files.write('repair.json',
      `[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":1,}},\n{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1,"args":{"s":"a\tb"}}]`);
    expect(await load(path)).toEqual({ names: ['a', 'b'], stats: { json_repaired_events: 2 } });
    expect(await strictError(path)).toBeInstanceOf(TraceFormatError);
  });

  it('skips an event with NaN and a null element, counted; strict refuses them', async () => {
    const nan = files.write('nan.json', `[${ev('a', 1)},{"ph":"X","name":"n","pid":1,"tid":1,"ts":2,"dur":NaN},${ev('b', 3)}]`);
    expect(await load(nan)).toEqual({ names: ['a', 'b'], stats: { json_parser_failure: 1 } });
    expect(await strictError(nan)).toBeInstanceOf(TraceFormatError);
    const nul = files.write('null.json', `{"traceEvents":[${ev('a', 1)}, null ,${ev('b', 3)}]}`);
    expect(await load(nul)).toEqual({ names: ['a', 'b'], stats: { json_parser_failure: 1 } });
    expect(String(await strictError(nul))).toMatch(/null\.json: line 1 .*expected an event object/);
  });

  it('keeps every whole event before a cut, in the array and the object form', async () => {
    const cut = `${ev('a', 1)},${ev('b', 2)},{"ph":"X","name":"c","pid":1,"ts`;
    for (const [name, text] of [['cut-array.json', `[${cut}`], ['cut-object.json', `{"traceEvents":[${cut}`]]) {
      const path = files.write(name!, text!);
      expect(await load(path)).toEqual({ names: ['a', 'b'], stats: { json_tokenizer_failure: 1 } });
      expect(String(await strictError(path))).toMatch(/truncated/);
    }
  });

  it('a .pftrace cut mid-packet keeps the whole packets; a truncated gzip keeps what decompressed', async () => {
    const whole = trace([
      [[10, 1], [8, 0], [13, 3], [60, [[1, 1], [2, 't']]]],
      [[10, 1], [8, 5], [11, [[9, 3], [11, 1], [23, 'x']]]],
      [[10, 1], [8, 6], [11, [[9, 3], [11, 1], [23, 'y']]]],
    ]);
    const cut = files.write('cut.pftrace', whole.subarray(0, whole.length - 3));
    const loaded = await load(cut);
    expect(loaded.names).toEqual(['x']);
    expect(loaded.stats.truncated_bytes).toBeGreaterThan(0);
    expect(String(await strictError(cut))).toMatch(/cut\.pftrace: byte \d+: truncated/);

    const events = Array.from({ length: 2000 }, (_, i) => ev(`e${i}`, i + 1)).join(',');
    const gz = files.write('cut.json.gz', `[${events}]`);
    const bytes = readFileSync(gz);
    writeFileSync(gz, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const partial = await load(gz);
    // Half the compressed bytes decode to some whole events: at least one, never all of them.
    expect(partial.names.length).toBeGreaterThan(0);
    expect(partial.names.length).toBeLessThan(2000);
    expect(partial.stats.gzip_truncated).toBe(1);
    expect(String(await strictError(gz))).toMatch(/cut\.json\.gz: compressed byte \d+: bad gzip data/);
  });
});
