/** Opens a trace for the analyses and always closes it; errors name the file (the importer already does). */
import type { TraceDb } from '@gsprof/profiler';
import { existsSync, statSync } from 'node:fs';
import { CliError } from '../errors.js';

export function requireFile(path: string): void {
  if (!existsSync(path)) throw new CliError(path, 'no such file');
  if (!statSync(path).isFile()) throw new CliError(path, 'not a regular file');
}

export async function withTrace<T>(path: string, fn: (db: TraceDb) => Promise<T>): Promise<T> {
  requireFile(path);
  const { openTrace } = await import('@gsprof/profiler');
  const db = await openTrace(path);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
