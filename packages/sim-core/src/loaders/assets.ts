/**
 * Finds model files: a path that exists as given wins; otherwise the name is looked up among the models
 * bundled with sim-core (packages/sim-core/assets), e.g. 'xml/franka_emika_panda/panda.xml'.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundled assets folder; the same relative location from src/loaders and dist/loaders. */
export const ASSETS_DIR = fileURLToPath(new URL('../../assets/', import.meta.url));

export function resolveAsset(file: string): string {
  if (existsSync(file)) return resolve(file);
  if (!isAbsolute(file)) {
    const bundled = join(ASSETS_DIR, file);
    if (existsSync(bundled)) return bundled;
  }
  throw new Error(`${file}: no such file, and no bundled asset of that name under ${ASSETS_DIR}`);
}
