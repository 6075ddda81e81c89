/**
 * The traces a multi-rank command reads, from what the user gave: trace files, folders (every trace in them; a
 * folder holding gsprof-export.json is a Parquet export), and globs (`'runs/*.json.gz'`, for a shell that did
 * not expand them; `*` and `?` in the last part of the path only).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EXPORT_MANIFEST } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { isTraceFile } from './open-trace.js';
import { distinctTraceFiles } from './rank-traces.js';

export interface TraceSet {
  /** Trace files, in the order given (a folder's and a glob's by name). */
  traces: string[];
  /** Parquet export folders. */
  exports: string[];
}

const GLOB = /[*?]/;

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

/** The files a glob names (`*` and `?` in its last part only). */
function expandGlob(pattern: string): string[] {
  const dir = dirname(pattern);
  if (GLOB.test(dir)) throw new CliError(pattern, 'a glob may only have * or ? in its last part (the file name); let the shell expand the rest');
  if (!existsSync(dir)) throw new CliError(pattern, `no such folder: ${dir}`);
  const re = globToRegExp(basename(pattern));
  return readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => join(dir, f))
    .filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile() && isTraceFile(p));
}

export function resolveTraceSet(inputs: string[]): TraceSet {
  const set: TraceSet = { traces: [], exports: [] };
  for (const input of inputs) {
    if (!existsSync(input) && GLOB.test(input)) {
      const files = expandGlob(input);
      if (files.length === 0) throw new CliError(input, 'no trace matches this glob');
      for (const f of files) set.traces.push(f);
      continue;
    }
    const st = statSync(input, { throwIfNoEntry: false });
    if (!st) throw new CliError(input, 'no such file');
    if (st.isDirectory()) {
      if (existsSync(join(input, EXPORT_MANIFEST))) {
        set.exports.push(input);
        continue;
      }
      const files = distinctTraceFiles(input).map((f) => f.path).sort();
      if (files.length === 0) throw new CliError(input, 'folder has no trace (.pftrace, .json, .json.gz) and is not a gsprof export');
      for (const f of files) set.traces.push(f);
    } else if (st.isFile()) {
      set.traces.push(input);
    } else {
      throw new CliError(input, 'not a regular file');
    }
  }
  // One file given twice (a folder and a glob over it) is one trace.
  set.traces = [...new Set(set.traces)];
  return set;
}
