import { missing } from './pending.js';
import type { View } from './summary.js';
export async function gapsReport(trace: string, options: { color: boolean; top: number }): Promise<View> {
  void trace; void options;
  return missing('gaps', 'gaps');
}
