/** The seed's disposable cache: point every cache folder at a `mktemp -d` directory for one run, then remove
 * it. The persistent cache is never touched. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CACHE_ENV_VARS = ['XDG_CACHE_HOME', 'GSPROF_CACHE_DIR'] as const;

export interface FreshCache {
  dir: string;
  /** Restores the previous environment and deletes the folder. */
  dispose(): void;
}

export function useFreshCache(env: NodeJS.ProcessEnv = process.env): FreshCache {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-cache-'));
  const saved = CACHE_ENV_VARS.map((name) => [name, env[name]] as const);
  env.XDG_CACHE_HOME = dir;
  env.GSPROF_CACHE_DIR = join(dir, 'gsprof');
  return {
    dir,
    dispose() {
      for (const [name, value] of saved) {
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
