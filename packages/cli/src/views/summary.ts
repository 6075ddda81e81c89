import { missing } from './pending.js';
export interface View { text: string; data: unknown }
export async function summarize(trace: string, options: { color: boolean; limit?: number }): Promise<View> {
  void trace; void options;
  return missing('summary', 'kernelSummary');
}
