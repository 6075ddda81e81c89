import { describe, expect, test } from 'vitest';
import { FPSTracker, fpsLine, pyFixed2 } from '../../src/api/fps.js';

describe("FPS counter: Genesis' FPSTracker line and window rule", () => {
  test('line format: total with thousands separators, per env and envs plain', () => {
    expect(fpsLine(1433.3333333333333, 30000)).toBe('Running at 43,000,000.00 FPS (1433.33 FPS per env, 30000 envs).');
    expect(fpsLine(812.5, 0)).toBe('Running at 812.50 FPS.');
    expect(fpsLine(12345.678, 0)).toBe('Running at 12345.68 FPS.');
    // Python rounds exact binary ties half-to-even (f"{0.125:.2f}" == "0.12"); toFixed would give 0.13.
    expect(pyFixed2(0.125)).toBe('0.12');
    expect(pyFixed2(0.375)).toBe('0.38');
    expect(pyFixed2(1234567.891, true)).toBe('1,234,567.89');
  });

  test('the first tick only starts the clock; windows are at least 50 ms; EMA with alpha', () => {
    const lines: string[] = [];
    const fps = new FPSTracker(4, 0.9, () => 0, (l) => lines.push(l));
    expect(fps.step(10.0)).toBeNull(); // starts the clock
    // 4 steps 10 ms apart: 40 ms < 50 ms, no line yet
    for (let i = 1; i <= 4; i++) expect(fps.step(10.0 + i * 0.01)).toBeNull();
    expect(lines).toHaveLength(0);
    // 5th step closes a 50 ms window with 5 steps: 100 steps/s per env
    const total = fps.step(10.05);
    expect(total).toBeCloseTo(400, 9);
    expect(lines).toEqual(['Running at 400.00 FPS (100.00 FPS per env, 4 envs).']);
    // next window: 1 step over 100 ms = 10/s; smoothed 0.9*100 + 0.1*10 = 91
    fps.step(10.15);
    expect(fps.fps).toBeCloseTo(91, 9);
    expect(lines[1]).toBe('Running at 364.00 FPS (91.00 FPS per env, 4 envs).');
  });

  test('unbatched tracker prints the short line', () => {
    const lines: string[] = [];
    const fps = new FPSTracker(0, 0.95, () => 0, (l) => lines.push(l));
    fps.step(1);
    fps.step(1.08); // 1 step in 80 ms = 12.5/s
    expect(lines).toEqual(['Running at 12.50 FPS.']);
  });
});
