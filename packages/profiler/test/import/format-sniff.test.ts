// Which format a file is read as, from its first bytes: a Perfetto trace starts with a packet tag (0x0a, also a
// newline), then the packet's length. A first packet 123 or 91 bytes long puts '{' or '[' right after the tag,
// as a JSON file that starts with a newline does; such a pftrace (convert's streaming writer wrote one) was
// read as broken JSON. What comes after the bracket tells them apart.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PerfettoStreamWriter } from '../../src/export/perfetto-writer.js';
import { openTraceSource } from '../../src/import/source.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-sniff-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

async function formatOf(path: string): Promise<string> {
  const source = await openTraceSource(path);
  for await (const _ of source.chunks) { /* read to the end, closing the file */ }
  return source.format;
}

/** A pftrace whose first packet (a process descriptor) is `length` bytes long. */
async function pftraceWithFirstPacket(length: number): Promise<string> {
  const path = join(dir, `first-${length}.pftrace`);
  for (let n = 1; n < 200; n++) {
    const w = await PerfettoStreamWriter.open(path, { baseTimeNs: 0n });
    w.addProcess(1, 'p'.repeat(n));
    await w.close();
    const bytes = readFileSync(path);
    if (bytes[0] === 0x0a && bytes[1] === length) return path;
  }
  throw new Error(`no process name gives a first packet of ${length} bytes`);
}

describe('trace format from the first bytes', () => {
  for (const [length, bracket] of [[0x7b, '{'], [0x5b, '[']] as const) {
    it(`a pftrace whose first packet is ${length} bytes long (0x0a '${bracket}') is protobuf`, async () => {
      expect(await formatOf(await pftraceWithFirstPacket(length))).toBe('proto');
    });
  }

  it('JSON that starts with a newline is still JSON, object or array', async () => {
    const files: Array<[string, string]> = [['object', '\n{"traceEvents": []}'], ['spaced', '\n{\n  "traceEvents": []}'], ['array', '\n[{"ph": "X"}]'], ['empty array', '\n[]']];
    for (const [name, text] of files) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, text);
      expect(await formatOf(path), name).toBe('json');
    }
  });
});
