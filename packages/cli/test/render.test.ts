import { describe, expect, it } from 'vitest';
import { downsample, renderChart } from '../src/render/chart.js';
import { histogramBins, renderHistogram } from '../src/render/histogram.js';
import { renderCsv, renderMarkdownTable, renderTable } from '../src/render/table.js';
import { colorEnabled } from '../src/render/color.js';
import { duration, thousands } from '../src/render/format.js';

const ansi = new RegExp(`${String.fromCharCode(27)}\\[`);

describe('tables', () => {
  it('are plain text without colour (no ANSI even though cli-table3 colours by default)', () => {
    const out = renderTable(['Name', 'Total'], [['solve', 12], ['crb', 3]], { color: false });
    expect(out).not.toMatch(ansi);
    expect(out).toContain('solve');
    expect(out.split('\n')[0]).toMatch(/^┌/);
  });
  it('colour the header when asked', () => {
    expect(renderTable(['Name'], [['x']], { color: true })).toMatch(ansi);
  });
  it('markdown escapes pipes and right-aligns numbers', () => {
    const md = renderMarkdownTable(['a|b', 'n'], [['x|y', 1]], ['left', 'right']);
    expect(md.split('\n')).toEqual(['| a\\|b | n |', '| --- | ---: |', '| x\\|y | 1 |']);
  });
  it('csv quotes commas and quotes', () => {
    expect(renderCsv(['a', 'b'], [['x,y', 'say "hi"'], [1n, null]])).toBe('a,b\n"x,y","say ""hi"""\n1,');
  });
});

describe('charts', () => {
  it('downsample keeps each bucket maximum', () => {
    expect(downsample([1, 5, 2, 2, 9, 0], 3)).toEqual([5, 2, 9]);
    expect(downsample([1, 2], 10)).toEqual([1, 2]);
  });
  it('fit the requested width whatever the number of points', () => {
    const series = Array.from({ length: 500 }, (_, i) => Math.sin(i / 20) * 100);
    const out = renderChart([series, series.map((v) => v / 2)], { width: 70, height: 8, color: false, labels: ['a', 'b'] });
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(70);
    expect(out).not.toMatch(ansi);
    expect(out).toContain('a');
  });
  it('handle a flat series', () => {
    expect(renderChart([[3, 3, 3]], { width: 40, color: false })).toContain('3');
  });
});

describe('histogram', () => {
  it('counts every finite value once', () => {
    const bins = histogramBins([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, NaN], 5);
    expect(bins.map((b) => b.count)).toEqual([2, 2, 2, 2, 2]);
  });
  it('renders bars within the width', () => {
    const out = renderHistogram([1, 1, 1, 2, 10], { width: 50, bins: 3 });
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(50);
    expect(out).toContain('█');
  });
});

describe('colour and formats', () => {
  it('NO_COLOR wins over a TTY, FORCE_COLOR over a pipe', () => {
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });
  it('durations print like torch', () => {
    expect(duration(1234)).toBe('1.234us');
    expect(duration(2_500_000)).toBe('2.500ms');
    expect(duration(999)).toBe('999ns');
    expect(thousands(43000000, 2)).toBe('43,000,000.00');
  });
});

describe('live progress', () => {
  it('only with both streams on a terminal, never in CI or on a dumb terminal', async () => {
    const { liveProgressEnabled } = await import('../src/render/color.js');
    expect(liveProgressEnabled({ isTTY: true }, { isTTY: true }, {})).toBe(true);
    expect(liveProgressEnabled({ isTTY: true }, { isTTY: false }, {})).toBe(false);
    expect(liveProgressEnabled({ isTTY: true }, { isTTY: true }, { CI: 'true' })).toBe(false);
    expect(liveProgressEnabled({ isTTY: true }, { isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });
});
