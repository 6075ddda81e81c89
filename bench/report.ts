/**
 * The HTML report in headless Chromium (Debian's chromium, driven by playwright-core):
 *
 * 1. Charting libraries on the same points: uPlot (what the pages inline) against Chart.js, a line chart of
 *    50,000 points drawn in a fresh page, time from the script's start to the chart drawn (both draw synchronously
 *    with Chart.js' animation off and its parsing skipped, as its performance guide advises), median of 7 runs
 *    each, alternating, and the size of each library's minified file.
 * 2. The report of a 200 MiB trace: a synthetic gsprof-shaped Chrome JSON trace (steps, a submit per step, ten
 *    kernels per step on a GPU queue; step times with a warm-up, noise and spikes), `gsprof report` on it once, then
 *    the page opened 5 times in fresh pages: time from navigation to the load event (the page script draws every
 *    chart before load), median and max.
 *
 *   npm run bench:report                      # both
 *   npm run bench:report -- --mib 50          # a smaller trace
 *   npm run bench:report -- --dir /some/tmp   # where the trace goes (default: os tmpdir); kept for reuse
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const CLI = fileURLToPath(new URL('../packages/cli/bin/run.js', import.meta.url));
const CHROMIUM = process.env.GSPROF_CHROMIUM ?? '/usr/bin/chromium';
const require = createRequire(import.meta.url);
const KERNELS = ['kinematics', 'com', 'crb', 'factor_m', 'passive', 'actuation', 'rne', 'smooth_acc', 'collision', 'make_constraint', 'solve', 'integrate'];

/** Chart.js exports only its entry points: its UMD bundle is found beside the entry (dist/). */
const CHARTJS = join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };

/** A page that draws `n` points with one library and records how long it took in document.title. */
function chartPage(dir: string, lib: 'uplot' | 'chartjs', n: number): string {
  const xs = Array.from({ length: n }, (_, i) => i);
  const ys = xs.map((i) => 1e6 + 2e5 * Math.sin(i / 500) + ((i * 7919) % 1000) * 100);
  const data = `const X = ${JSON.stringify(xs)}; const Y = ${JSON.stringify(ys)};`;
  const src = lib === 'uplot' ? readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8') : readFileSync(CHARTJS, 'utf8');
  const css = lib === 'uplot' ? `<style>${readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8')}</style>` : '';
  const draw = lib === 'uplot'
    ? `new uPlot({ width: 1000, height: 300, scales: { x: { time: false } }, series: [{}, { stroke: 'blue' }] }, [X, Y], document.getElementById('c'));`
    : `const canvas = document.createElement('canvas'); document.getElementById('c').appendChild(canvas);
       new Chart(canvas, { type: 'line', data: { datasets: [{ data: X.map((x, i) => ({ x, y: Y[i] })), borderColor: 'blue', pointRadius: 0, borderWidth: 1 }] },
         options: { animation: false, parsing: false, normalized: true, responsive: false, scales: { x: { type: 'linear' } } } });`;
  const file = join(dir, `chart-${lib}.html`);
  writeFileSync(file, `<!doctype html><html><head>${css}</head><body><div id="c" style="width:1000px;height:300px"></div>
<script>${data}</script><script>${src}</script>
<script>const t0 = performance.now(); ${draw} document.title = String(performance.now() - t0);</script></body></html>`);
  return file;
}

/** gsprof-shaped Chrome JSON of about `mib` MiB: ns step times with a warm-up, noise and a spike every 997 steps. */
async function writeTrace(path: string, mib: number): Promise<number> {
  const tmp = `${path}.partial`;
  const out = createWriteStream(tmp);
  const write = (s: string): Promise<void> => new Promise((r) => { if (out.write(s)) r(); else out.once('drain', () => r()); });
  await write('{"schemaVersion":1,"gsprofMetadata":{"run":{"nEnvs":1024}},"traceEvents":[\n{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"host"}},\n{"ph":"M","name":"process_name","pid":1000,"tid":0,"args":{"name":"GPU 0"}}');
  let bytes = 0;
  let t = 0;
  let step = 0;
  const us = (ns: number): string => (ns / 1000).toFixed(3);
  while (bytes < mib * 1024 * 1024) {
    const warm = step < 20 ? 4 - step * 0.15 : 1;
    const spike = step % 997 === 500 ? 3 : 1;
    let s = `,\n{"ph":"X","cat":"cuda_runtime","name":"queue.submit","pid":1,"tid":1,"ts":${us(t + 5_000)},"dur":${us(4_000)}}`;
    let k = t + 12_000;
    KERNELS.forEach((name, i) => {
      const dur = Math.round((4_000 + ((step * 7 + i * 13) % 11) * 700) * warm * spike);
      s += `,\n{"ph":"X","cat":"kernel","name":"${name}","pid":1000,"tid":0,"ts":${us(k)},"dur":${us(dur)}}`;
      k += dur + 1_500;
    });
    const dur = k - t + 3_000;
    s = `,\n{"ph":"X","cat":"user_annotation","name":"ProfilerStep#${step}","pid":1,"tid":1,"ts":${us(t)},"dur":${us(dur)}}${s}`;
    await write(s);
    bytes += s.length;
    t += dur + 1_000;
    step++;
  }
  await write('\n]}\n');
  await new Promise<void>((r) => out.end(() => r()));
  renameSync(tmp, path);
  return step;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { mib: { type: 'string', default: '200' }, dir: { type: 'string', default: join(tmpdir(), 'gsprof-bench-report') } } });
  const dir = values.dir!;
  mkdirSync(dir, { recursive: true });
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM} (scripts/install-chromium.sh)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    // 1. uPlot against Chart.js on the same 50,000 points, alternating.
    const n = 50_000;
    const files = { uplot: chartPage(dir, 'uplot', n), chartjs: chartPage(dir, 'chartjs', n) };
    const times: Record<'uplot' | 'chartjs', number[]> = { uplot: [], chartjs: [] };
    for (let i = 0; i < 7; i++) {
      for (const lib of ['uplot', 'chartjs'] as const) {
        const page = await browser.newPage();
        await page.goto(pathToFileURL(files[lib]).href, { waitUntil: 'load' });
        times[lib].push(Number(await page.title()));
        await page.close();
      }
    }
    const size = (p: string): number => statSync(p).size;
    console.log(`Chart libraries, a line of ${n.toLocaleString('en-US')} points in headless Chromium (median of 7, alternating):`);
    console.log('| library | minified size | draw, median | draw, runs |');
    console.log('|---|---|---|---|');
    console.log(`| uPlot 1.6.32 | ${(size(require.resolve('uplot/dist/uPlot.iife.min.js')) / 1024).toFixed(0)} KiB | ${median(times.uplot).toFixed(1)} ms | ${times.uplot.map((t) => t.toFixed(0)).join(', ')} |`);
    console.log(`| Chart.js 4.6.1 | ${(size(CHARTJS) / 1024).toFixed(0)} KiB | ${median(times.chartjs).toFixed(1)} ms | ${times.chartjs.map((t) => t.toFixed(0)).join(', ')} |`);
    console.log(`Chart.js / uPlot draw time: ${(median(times.chartjs) / median(times.uplot)).toFixed(1)}x\n`);

    // 2. The report of a big trace.
    const mib = Number(values.mib);
    const trace = join(dir, `steps-${mib}MiB.json`);
    if (!existsSync(trace)) console.log(`generated ${trace}: ${await writeTrace(trace, mib)} steps`);
    const html = join(dir, `report-${mib}MiB.html`);
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'report', trace, '-o', html], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    if (r.status !== 0) throw new Error(`gsprof report failed: ${r.stderr}`);
    const reportS = (performance.now() - t0) / 1000;
    const loads: number[] = [];
    let drawn = '';
    for (let i = 0; i < 5; i++) {
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      const started = performance.now();
      await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
      loads.push(performance.now() - started);
      drawn = String(await page.evaluate('document.body.dataset.chartsDrawn'));
      await page.close();
    }
    console.log(`Report of a ${(statSync(trace).size / 2 ** 20).toFixed(0)} MiB trace: gsprof report ${reportS.toFixed(1)} s (import included unless cached), page ${(statSync(html).size / 2 ** 20).toFixed(2)} MiB, ${drawn} charts`);
    console.log(`Page opened in headless Chromium, navigation to load (charts drawn): median ${median(loads).toFixed(0)} ms, max ${loads.reduce((m, t) => Math.max(m, t), 0).toFixed(0)} ms (runs: ${loads.map((t) => t.toFixed(0)).join(', ')}); target under 3000 ms`);
  } finally {
    await browser.close();
  }
}

await main();
