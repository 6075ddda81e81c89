/** `gsprof export --format parquet`: the traces' tables as Parquet, partitioned by rank (docs/export.md). */
import type { ExportResult } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { importSettings } from './open-trace.js';
import { isInside, refuseOwnInput } from './own-input.js';
import { resolveTraceSet } from './trace-set.js';

export interface ExportOptions {
  memoryLimit: string;
  /** One line per trace done (to stderr), for many ranks. */
  progress?: (line: string) => void;
}

export async function exportTraces(inputs: string[], out: string, options: ExportOptions): Promise<ExportResult> {
  const set = resolveTraceSet(inputs);
  if (set.exports.length > 0) throw new CliError(set.exports[0]!, 'is a Parquet export already; give trace files or folders of traces');
  // The output folder is replaced: it must be neither an input folder nor hold an input trace.
  refuseOwnInput('export', out, inputs);
  const inside = set.traces.find((t) => isInside(t, out));
  if (inside !== undefined) throw new CliError(out, `holds ${inside}, an input of export; export replaces its output folder and never removes its own input`);
  const { exportParquet, ParquetExportError } = await import('@gsprof/profiler');
  try {
    return await exportParquet(set.traces, out, {
      memoryLimit: options.memoryLimit,
      strict: importSettings.strict,
      cache: importSettings.cache,
      onTrace: options.progress && set.traces.length > 1
        ? (path, done, total) => options.progress!(`[${done}/${total}] ${path}`)
        : undefined,
    });
  } catch (err) {
    if (err instanceof ParquetExportError) throw new CliError('export', err.message);
    throw err;
  }
}
