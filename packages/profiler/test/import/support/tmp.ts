import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Where GSPROF_KEEP_TEST_TRACES asks for a copy of every trace the importer tests write (for
 * scripts/tp-compare.mjs to read with trace_processor too), numbered so that equal names never collide. */
const keep = process.env.GSPROF_KEEP_TEST_TRACES;
let kept = 0;

/** A temp folder for one test file; `write` puts a file in it (gzip when the name ends in .gz). */
export function tempFiles(): { write(name: string, data: string | Uint8Array): string; cleanup(): void; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-test-'));
  return {
    dir,
    write(name, data) {
      const p = join(dir, name);
      const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
      const written = name.endsWith('.gz') ? gzipSync(bytes) : bytes;
      writeFileSync(p, written);
      if (keep) {
        mkdirSync(keep, { recursive: true });
        writeFileSync(join(keep, `${process.pid}-${String(kept++).padStart(3, '0')}-${name}`), written);
      }
      return p;
    },
    cleanup() { rmSync(dir, { recursive: true, force: true }); },
  };
}
