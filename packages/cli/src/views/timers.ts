import { missing } from './pending.js';
import type { View } from './summary.js';
export async function timersReport(trace: string, options: { color: boolean; envs?: number[]; slot?: string; height?: number }): Promise<View> {
  void trace; void options;
  return missing('timers', 'timers');
}
