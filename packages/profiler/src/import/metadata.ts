/** Run metadata that our own recorder writes (Perfetto: instant 'gsprof.metadata'; Chrome: 'gsprofMetadata'). */
import type { TraceSink } from './sink.js';

/** Keeps the JSON text and flattens scalar fields to `gsprof.<path>` rows, e.g. gsprof.run.nEnvs. */
export function recordGsprofMetadata(sink: TraceSink, json: string): void {
  sink.metadata('gsprof.json', json);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    sink.stat('gsprof_metadata_unparsable');
    return;
  }
  flatten(sink, 'gsprof', value, 0);
}

/**
 * The category and name of a pftrace's flows, which TrackEvent cannot carry: our exporter writes them on the
 * metadata instant as {"default": [category, name], "other": [[category, name, [flow ids]], ...]}.
 */
export function recordFlowNames(sink: TraceSink, json: string): void {
  let v: { default?: unknown; other?: unknown };
  try { v = JSON.parse(json) as typeof v; } catch { sink.stat('gsprof_flow_names_unparsable'); return; }
  const pair = (p: unknown): p is [string, string, ...unknown[]] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string';
  if (pair(v.default)) sink.flowName(null, v.default[0], v.default[1]);
  for (const o of Array.isArray(v.other) ? v.other : []) {
    if (pair(o) && Array.isArray(o[2])) for (const id of o[2]) sink.flowName(`p${String(id)}`, o[0], o[1]);
  }
}

function flatten(sink: TraceSink, prefix: string, v: unknown, depth: number): void {
  if (v === null || v === undefined) return;
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) sink.metadata(prefix, null, v); else sink.metadata(prefix, String(v));
  } else if (typeof v === 'string') sink.metadata(prefix, v);
  else if (typeof v === 'boolean') sink.metadata(prefix, null, v ? 1 : 0);
  else if (Array.isArray(v) || depth >= 4) sink.metadata(prefix, JSON.stringify(v));
  else for (const k of Object.keys(v)) flatten(sink, `${prefix}.${k}`, (v as Record<string, unknown>)[k], depth + 1);
}
