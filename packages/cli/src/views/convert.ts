/** `gsprof convert`: import (any format gsprof reads), then export in the format the output name says. */
import { CliError } from '../errors.js';
import { resolveTrace, withTrace } from './open-trace.js';

export interface ConvertResult { input: string; output: string; format: 'perfetto' | 'chrome'; slices: number; counters: number; flows: number; envTimerSamples: number }

export function outputFormat(path: string): 'perfetto' | 'chrome' {
  if (/\.(pftrace|perfetto-trace|pb)$/i.test(path)) return 'perfetto';
  if (/\.json(\.gz)?$/i.test(path)) return 'chrome';
  throw new CliError(path, 'unknown output format (use .pftrace for Perfetto, .json or .json.gz for Chrome JSON)');
}

export async function convertTrace(input: string, output: string): Promise<ConvertResult> {
  const format = outputFormat(output);
  input = resolveTrace(input);
  const { tablesToModel } = await import('../convert/tables-to-model.js');
  const { writeChromeTrace, writePerfettoTrace } = await import('@gsprof/profiler');
  const model = await withTrace(input, (db) => tablesToModel(db, input));
  if (format === 'perfetto') await writePerfettoTrace(model, output);
  else await writeChromeTrace(model, output);
  return { input, output, format, slices: model.slices.length, counters: model.counters.length, flows: model.flows.length, envTimerSamples: model.envTimers.length };
}
