/** The seed's disposable cache: point the cache folders at a `mktemp -d` directory for one run, then remove
 * it. gsprof keeps no kernel cache of its own; what this makes cold is the driver's shader cache (Mesa keeps
 * compiled shaders under $XDG_CACHE_HOME/mesa_shader_cache unless MESA_SHADER_CACHE_DIR says otherwise).
 * The persistent caches are never touched. */
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '@gsprof/dawn';

export const CACHE_ENV_VARS = ['XDG_CACHE_HOME', 'MESA_SHADER_CACHE_DIR'] as const;

export interface FreshCache {
  dir: string;
  /** Restores the previous environment and deletes the folder. */
  dispose(): void;
}

export function useFreshCache(env: NodeJS.ProcessEnv = process.env): FreshCache {
  const dir = makeTempDir('cache');
  const saved = CACHE_ENV_VARS.map((name) => [name, env[name]] as const);
  env.XDG_CACHE_HOME = dir;
  env.MESA_SHADER_CACHE_DIR = join(dir, 'mesa_shader_cache');
  return {
    dir,
    dispose() {
      for (const [name, value] of saved) {
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
      removeTempDir(dir);
    },
  };
}
