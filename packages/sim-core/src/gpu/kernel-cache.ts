/**
 * On-disk cache of generated kernels (WGSL, the compiled model and the pipeline layout), keyed by the
 * sha256 of their inputs and the gsprof version, bounded in size by evicting the least recently used entry.
 *
 * Folder: GSPROF_CACHE_DIR, else $XDG_CACHE_HOME/gsprof, else ~/.cache/gsprof (as Genesis does for its own
 * cache). Point it at a `mktemp -d` folder for a benchmark that must not see a warm cache.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CACHE_VERSION = 'gsprof-kernels-1';
const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GSPROF_CACHE_DIR) return env.GSPROF_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'gsprof');
  return join(homedir(), '.cache', 'gsprof');
}

export interface CacheStats {
  kernel: string;
  hit: boolean;
  /** Time to produce the entry (generate on a miss, read on a hit), ms. */
  ms: number;
}

export class KernelCache {
  readonly dir: string;
  readonly maxBytes: number;
  readonly stats: CacheStats[] = [];

  constructor(opts: { dir?: string; maxBytes?: number } = {}) {
    this.dir = join(opts.dir ?? cacheDir(), 'kernels');
    this.maxBytes = opts.maxBytes ?? (Number(process.env.GSPROF_CACHE_MAX_BYTES) || DEFAULT_MAX_BYTES);
  }

  static key(inputs: unknown): string {
    return createHash('sha256').update(CACHE_VERSION).update(JSON.stringify(inputs)).digest('hex');
  }

  /** Returns the cached value for `inputs`, or builds, stores and returns it. */
  getOrBuild<T>(kernel: string, inputs: unknown, build: () => T): T {
    const t0 = performance.now();
    const key = KernelCache.key({ kernel, inputs });
    const file = join(this.dir, `${key}.json`);
    try {
      const value = JSON.parse(readFileSync(file, 'utf8')) as T;
      const now = new Date();
      utimesSync(file, now, now);
      this.stats.push({ kernel, hit: true, ms: performance.now() - t0 });
      return value;
    } catch {
      // A missing or unreadable entry is a miss; it is rebuilt and overwritten below.
    }
    const value = build();
    try {
      mkdirSync(this.dir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(value));
      renameSync(tmp, file);
      this.evict();
    } catch {
      // A read-only or full disk must not stop a simulation; the kernel is simply not cached.
    }
    this.stats.push({ kernel, hit: false, ms: performance.now() - t0 });
    return value;
  }

  /** Deletes least recently used entries until the folder is within maxBytes. */
  evict(): void {
    let entries: { file: string; size: number; used: number }[];
    try {
      entries = readdirSync(this.dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => {
          const st = statSync(join(this.dir, f));
          return { file: join(this.dir, f), size: st.size, used: st.mtimeMs };
        });
    } catch {
      return;
    }
    let total = entries.reduce((s, e) => s + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= this.maxBytes) break;
      try {
        unlinkSync(e.file);
        total -= e.size;
      } catch {
        // Another process may have evicted it first.
      }
    }
  }
}
