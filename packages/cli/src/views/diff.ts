import { missing } from './pending.js';
import type { View } from './summary.js';
export async function diffReport(control: string, test: string, options: { color: boolean; limit: number }): Promise<View> {
  void control; void test; void options;
  return missing('diff', 'diff');
}
