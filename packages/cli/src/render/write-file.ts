/** Text output to a file: written under a temporary name beside it, then renamed, so readers never see half. */
import { rename, rm, writeFile } from 'node:fs/promises';
import { CliError } from '../errors.js';

export async function writeTextAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new CliError(path, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
}
