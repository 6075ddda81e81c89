/**
 * Where an unmodified program's steps come from: its explicit marks (`globalThis.gsprof?.step()`) if it makes
 * any, else its queue submits. Once the first mark arrives, submits stop counting.
 */
export class StepSource {
  private marked = false;
  private submitsSinceMark = 0;
  steps = 0;

  constructor(private readonly onStep: () => void) {}

  /** The program called gsprof.step(). */
  mark(): void {
    this.marked = true;
    this.submitsSinceMark = 0;
    this.steps++;
    this.onStep();
  }

  /** The program submitted work to a queue. */
  submit(): void {
    if (this.marked) { this.submitsSinceMark++; return; }
    this.steps++;
    this.onStep();
  }

  get mode(): 'marks' | 'submits' {
    return this.marked ? 'marks' : 'submits';
  }
}
