import { missing } from './pending.js';
import type { View } from './summary.js';
export async function queryReport(trace: string, sql: string, options: { color: boolean; format: 'table' | 'csv' | 'json' }): Promise<View> {
  void trace; void sql; void options;
  return missing('query', 'queryTrace');
}
