/** A field whose wire type is not the one its message declares reads as protobuf's decoders read it: skipped. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtoReader } from '../../src/import/proto-reader.js';
import { queryTrace } from '../../src/index.js';

describe('a field of the wrong wire type', () => {
  it('where a message or string belongs, a varint is skipped and reads as empty; the next field still reads', () => {
    // field 1 varint 150, then field 2 length 2 "hi".
    const r = new ProtoReader(Uint8Array.from([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69]), 0, 7);
    expect(r.next()).toBe(true);
    const sub = r.sub();
    expect(sub.next()).toBe(false);
    expect(r.next()).toBe(true);
    expect(r.string()).toBe('hi');
    const s = new ProtoReader(Uint8Array.from([0x08, 0x96, 0x01]), 0, 3);
    s.next();
    expect(s.string()).toBe('');
    expect(s.next()).toBe(false);
  });

  it('a TracePacket whose field 1 (ftrace_events) is a varint loads as an empty trace, as trace_processor loads it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gsprof-wire-')), 'tiny.pftrace');
    writeFileSync(file, Uint8Array.from([0x0a, 0x03, 0x08, 0x96, 0x01]));
    const { rows } = await queryTrace(file, 'select count(*) as n from slice', { cache: false });
    expect(Number(rows[0]!.n)).toBe(0);
  });
});
