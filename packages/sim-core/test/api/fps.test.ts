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

  test('the first tick only starts the clock; windows are at least 50 ms; the window duration is smoothed', () => {
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
    // next window: 6 steps over 60 ms (1.2x the smoothed 50 ms, no reset): dtEma 0.9*50 + 0.1*60 = 51 ms,
    // 6 / 0.051 = 117.65 steps/s
    for (let i = 1; i <= 5; i++) expect(fps.step(10.05 + i * 0.0099)).toBeNull(); // 49.5 ms: still open
    fps.step(10.11);
    expect(fps.fps).toBeCloseTo(6 / 0.051, 9);
    expect(lines[1]).toBe('Running at 470.59 FPS (117.65 FPS per env, 4 envs).');
  });

  test('a window 1.5x longer or shorter than the smoothed one resets it: a slowdown shows at once', () => {
    const lines: string[] = [];
    const fps = new FPSTracker(1, 0.95, () => 0, (l) => lines.push(l));
    fps.step(0);
    for (let i = 1; i <= 50; i++) fps.step(i * 0.001); // 50 steps of 1 ms: one 50 ms window, 1000/s
    expect(fps.fps).toBeCloseTo(1000, 6);
    fps.step(0.05 + 0.2); // one step of 200 ms: 4x the smoothed window, so dtEma becomes 200 ms
    expect(fps.fps).toBeCloseTo(5, 9);
    // Without the reset the EMA would read 1 / (0.95*0.05 + 0.05*0.2) = 17.4 steps/s, 3.5x the true 5.
    expect(lines.at(-1)).toBe('Running at 5.00 FPS (5.00 FPS per env, 1 envs).');
  });

  test('unbatched tracker prints the short line', () => {
    const lines: string[] = [];
    const fps = new FPSTracker(0, 0.95, () => 0, (l) => lines.push(l));
    fps.step(1);
    fps.step(1.08); // 1 step in 80 ms = 12.5/s
    expect(lines).toEqual(['Running at 12.50 FPS.']);
  });
});
