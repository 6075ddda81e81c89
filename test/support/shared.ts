/**
 * Locates ../shared (reference models and third-party traces), which developer machines and CI have but a
 * user's clone does not. Tests that need it call `requireShared()` inside `describe.skipIf(!hasShared())`:
 * without the folder they skip with a printed reason, except under CI=true, where its absence is a failure.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sharedRoot = process.env.GSPROF_SHARED_DIR ?? join(repoRoot, '..', 'shared');

export const SHARED_DIR = sharedRoot;
export const REPO_ROOT = repoRoot;

export function hasShared(): boolean {
  if (existsSync(sharedRoot)) return true;
  if (process.env.CI === 'true') {
    throw new Error(`CI=true but the shared reference folder is missing: ${sharedRoot}`);
  }
  console.warn(`skipping: reference folder ../shared not found (set GSPROF_SHARED_DIR to point at it)`);
  return false;
}

export function sharedPath(...parts: string[]): string {
  return join(sharedRoot, ...parts);
}
