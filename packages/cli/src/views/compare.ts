import { missing } from './pending.js';
export interface CompareView { text: string; markdown: string; data: unknown; regressed: boolean }
export async function baselineFor(trace: string): Promise<unknown> {
  void trace;
  return missing('baseline', 'baselineFromTrace');
}
export async function compareReport(baseline: string, current: string, options: { factor: number; method: 'mannwhitney' | 'ttest' | 'percent'; format: 'table' | 'markdown' | 'json' | 'junit'; color: boolean }): Promise<CompareView> {
  void baseline; void current; void options;
  return missing('compare', 'compare');
}
