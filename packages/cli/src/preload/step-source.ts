/**
 * Where an unmodified program's steps come from: its explicit marks (`globalThis.gsprof?.step()`) if it makes
 * any, else its queue submits. Once the first mark arrives, submits stop counting.
 */
export type StepsFrom = 'auto' | 'marks' | 'submits';

export class StepSource {
  private marked = false;
  private submitsSinceMark = 0;
  steps = 0;

  /** 'auto': submits until the first mark, marks after it; 'marks' / 'submits': only those. */
  constructor(private readonly onStep: () => void, private readonly from: StepsFrom = 'auto') {}

  /** The program called gsprof.step(). */
  mark(): void {
    if (this.from === 'submits') return;
    this.marked = true;
    this.submitsSinceMark = 0;
    this.steps++;
    this.onStep();
  }

  /** The program submitted work to a queue. */
  submit(): void {
    if (this.marked || this.from === 'marks') { this.submitsSinceMark++; return; }
    this.steps++;
    this.onStep();
  }

  get mode(): 'marks' | 'submits' {
    return this.marked || this.from === 'marks' ? 'marks' : 'submits';
  }
}
