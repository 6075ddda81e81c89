/**
 * V8's garbage collections as host spans (category 'gc'): a pause in the main thread between two spans would
 * otherwise be unexplained time in a step. Node reports each collection through perf_hooks after the fact, with
 * its start on the performance.now() clock, which is the system host clock (host-clock.ts).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const KIND: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'GC (minor)',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'GC (major)',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'GC (incremental marking)',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'GC (weak callbacks)',
};

export type GcSpanSink = (name: string, startNs: number, endNs: number) => void;

/** Watches collections until stop(); stop() also delivers the ones Node has not handed over yet. */
export class GcSpans {
  private readonly observer: PerformanceObserver;

  constructor(private readonly sink: GcSpanSink) {
    this.observer = new PerformanceObserver((list) => this.deliver(list.getEntries()));
    this.observer.observe({ entryTypes: ['gc'] });
  }

  private deliver(entries: readonly PerformanceEntry[]): void {
    for (const e of entries) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      this.sink(KIND[kind ?? -1] ?? 'GC', e.startTime * 1e6, (e.startTime + e.duration) * 1e6);
    }
  }

  stop(): void {
    this.deliver(this.observer.takeRecords());
    this.observer.disconnect();
  }
}
