/** Writes an MJCF string to a fresh temporary directory as m.xml and returns its path (loaders read files). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function writeXml(xml: string, prefix = 'gsprof-xml-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'm.xml'), xml);
  return join(dir, 'm.xml');
}
