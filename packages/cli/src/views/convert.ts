/** `gsprof convert`: import (any format gsprof reads), then export in the format the output name says. */
import { realpathSync, statSync } from 'node:fs';
import { CliError } from '../errors.js';
import { resolveTrace, withTrace } from './open-trace.js';

export interface ConvertResult { input: string; output: string; format: 'perfetto' | 'chrome'; slices: number; counters: number; flows: number; envTimerSamples: number }

export function outputFormat(path: string): 'perfetto' | 'chrome' {
  if (/\.(pftrace|perfetto-trace|pb)$/i.test(path)) return 'perfetto';
  if (/\.json(\.gz)?$/i.test(path)) return 'chrome';
  throw new CliError(path, 'unknown output format (use .pftrace for Perfetto, .json or .json.gz for Chrome JSON)');
}

/** Whether `output` names the file `input` is (same path, a link to it, or a hard link): writing would destroy the input. */
export function isSameFile(input: string, output: string): boolean {
  try {
    const a = statSync(input);
    const b = statSync(output);
    return (a.dev === b.dev && a.ino === b.ino) || realpathSync(input) === realpathSync(output);
  } catch {
    return false;
  }
}

export async function convertTrace(input: string, output: string): Promise<ConvertResult> {
  const format = outputFormat(output);
  input = resolveTrace(input);
  if (isSameFile(input, output)) throw new CliError(output, 'is the input trace; convert writes a new file and never overwrites its input');
  const { tablesToModel } = await import('../convert/tables-to-model.js');
  const { writeChromeTrace, writePerfettoTrace } = await import('@gsprof/profiler');
  const model = await withTrace(input, (db) => tablesToModel(db, input));
  if (format === 'perfetto') await writePerfettoTrace(model, output);
  else await writeChromeTrace(model, output);
  return { input, output, format, slices: model.slices.length, counters: model.counters.length, flows: model.flows.length, envTimerSamples: model.envTimers.length };
}
