import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** A temp folder for one test file; `write` puts a file in it (gzip when the name ends in .gz). */
export function tempFiles(): { write(name: string, data: string | Uint8Array): string; cleanup(): void; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-test-'));
  return {
    dir,
    write(name, data) {
      const p = join(dir, name);
      const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
      writeFileSync(p, name.endsWith('.gz') ? gzipSync(bytes) : bytes);
      return p;
    },
    cleanup() { rmSync(dir, { recursive: true, force: true }); },
  };
}
