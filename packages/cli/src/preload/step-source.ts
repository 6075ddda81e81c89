/**
 * Where an unmodified program's steps come from: its explicit marks (`globalThis.gsprof?.step()`) if it makes
 * any, else its sim-core scene steps if it uses sim-core, else its queue submits (a sim-core step on the GPU
 * submits too, so once scene steps are seen, submits no longer count).
 *
 * 'auto' cannot see the future: a submit before the program's first mark cannot be known to belong to a marked
 * frame. So auto starts on marks when the program's main script calls gsprof.step() (programUsesMarks), and
 * otherwise counts submits until the first mark; steps counted that way before a mark are reported
 * (submitStepsBeforeMark) so the run can say it invented them, instead of passing them off as real steps.
 */
import { readFileSync, statSync } from 'node:fs';

export type StepsFrom = 'auto' | 'marks' | 'submits';

export class StepSource {
  private marked = false;
  private sceneSteps = false;
  steps = 0;
  /** Auto mode only: steps counted from submits before the first mark arrived (they split one marked step). */
  submitStepsBeforeMark = 0;

  /** 'auto': submits until the first mark, marks after it (marks from the start when `expectMarks`);
   * 'marks' / 'submits': only those. */
  constructor(private readonly onStep: () => void, private readonly from: StepsFrom = 'auto', private readonly expectMarks = false) {}

  /** The program called gsprof.step(). */
  mark(): void {
    if (this.from === 'submits') return;
    if (!this.marked && this.from === 'auto' && !this.expectMarks) this.submitStepsBeforeMark = this.steps;
    this.marked = true;
    this.steps++;
    this.onStep();
  }

  /** The program loaded sim-core: in 'auto', its scene steps will be the steps, not the submits they make. */
  expectSceneSteps(): void {
    if (this.from === 'auto') this.sceneSteps = true;
  }

  /** The program finished a sim-core scene.step(). Counted in 'auto' until the program marks steps itself. */
  scene(): void {
    if (this.from !== 'auto' || this.marked || this.expectMarks) return;
    this.sceneSteps = true;
    this.steps++;
    this.onStep();
  }

  /** The program submitted work to a queue. */
  submit(): void {
    if (this.marked || this.sceneSteps || this.from === 'marks' || (this.from === 'auto' && this.expectMarks)) return;
    this.steps++;
    this.onStep();
  }

  get mode(): 'marks' | 'scene steps' | 'submits' {
    if (this.marked || this.from === 'marks' || (this.from === 'auto' && this.expectMarks)) return 'marks';
    return this.sceneSteps ? 'scene steps' : 'submits';
  }
}

/** True when the script's own text calls gsprof.step() (e.g. `globalThis.gsprof?.step()`). Only the main
 * script is read: marks made from an imported module are found at their first call instead. */
export function programUsesMarks(script: string | undefined): boolean {
  if (!script) return false;
  try {
    if (!statSync(script).isFile() || statSync(script).size > 8 * 1024 * 1024) return false;
    return /gsprof\s*\??\.\s*step\s*\(/.test(readFileSync(script, 'utf8'));
  } catch {
    return false;
  }
}
