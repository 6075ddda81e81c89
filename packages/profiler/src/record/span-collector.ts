/**
 * A tracer that only remembers spans, for work done before a profiler exists or records (a scene build and its
 * first, compiling step). Its spans use the profiler's host clock, so `prof.addPreRecordedSpans(collector.take())`
 * places them at their true times in the first recorded trace.
 */
import type { Args } from '../model/trace.js';
import { systemClock, type HostClock } from './host-clock.js';

/** A finished host span, in host-clock ns. */
export interface PreRecordedSpan {
  name: string;
  category: string;
  startHostNs: number;
  endHostNs: number;
  args?: Args;
}

export interface SpanCollectorOptions {
  /** Must be the clock of the profiler that will receive the spans. */
  clock?: HostClock;
  /** Keep only spans of these categories (others are still matched begin/end, just not kept). */
  categories?: readonly string[];
}

export class SpanCollector {
  private readonly clock: HostClock;
  private readonly categories: ReadonlySet<string> | null;
  private readonly open: (PreRecordedSpan | null)[] = [];
  private spans: PreRecordedSpan[] = [];

  constructor(options: SpanCollectorOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.categories = options.categories ? new Set(options.categories) : null;
  }

  begin(name: string, category: string, args?: Args): void {
    if (this.categories && !this.categories.has(category)) { this.open.push(null); return; }
    const span: PreRecordedSpan = { name, category, startHostNs: this.clock.nowNs(), endHostNs: Number.NaN };
    if (args) span.args = { ...args };
    this.open.push(span);
    // Kept in begin order, so parents come before their children.
    this.spans.push(span);
  }

  end(): void {
    const span = this.open.pop();
    if (span) span.endHostNs = this.clock.nowNs();
  }

  /** The spans so far, and forgets them. Spans still open end now and are marked unfinished. */
  take(): PreRecordedSpan[] {
    const now = this.clock.nowNs();
    for (const span of this.open) {
      if (span && Number.isNaN(span.endHostNs)) {
        span.endHostNs = now;
        span.args = { ...span.args, unfinished: true };
      }
    }
    this.open.length = 0;
    const out = this.spans;
    this.spans = [];
    return out;
  }
}
