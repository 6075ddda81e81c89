import { missing } from './pending.js';
export interface ConvertResult { input: string; output: string; format: 'perfetto' | 'chrome'; slices: number; counters: number; flows: number }
export async function convertTrace(input: string, output: string): Promise<ConvertResult> {
  void input; void output;
  return missing('convert', 'openTrace');
}
