// The script of gsprof's HTML pages (report, compare --html, bench --html, report --history), inlined into each
// page after uPlot. It draws the charts the page's JSON describes (render/html/charts.ts builds the specs) and
// makes every table with class "sortable" sort on a click of its header. No network, no other library.
(() => {
  const spec = JSON.parse(document.getElementById('gsprof-charts').textContent);

  // Values in ns read as µs/ms/s; counts and ratios as plain numbers.
  const fmt = (unit, v) => {
    if (v === null || v === undefined || !Number.isFinite(v)) return '-';
    if (unit === 'ns') {
      const a = Math.abs(v);
      if (a < 1e3) return `${v.toFixed(0)}ns`;
      if (a < 1e6) return `${(v / 1e3).toFixed(a < 1e4 ? 2 : 1)}us`;
      if (a < 1e9) return `${(v / 1e6).toFixed(a < 1e7 ? 2 : 1)}ms`;
      return `${(v / 1e9).toFixed(2)}s`;
    }
    if (unit === '%') return `${v.toFixed(1)}%`;
    const a = Math.abs(v);
    if (a >= 1e6) return `${(v / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
    if (a >= 1e4) return `${(v / 1e3).toFixed(0)}k`;
    return Number.isInteger(v) ? String(v) : v.toFixed(2);
  };

  // Grouped bars: the bar series of a chart side by side within each x slot of `slot` x units (1 for categories,
  // the bin width for a histogram), together 80% of it; positions and widths are in x units (disp unit 1).
  // 1, 2, 5, 10, 20, 50, ... : tick steps for axes whose values are whole numbers.
  const WHOLE_INCREMENTS = Array.from({ length: 39 }, (_, i) => [1, 2, 5][i % 3] * 10 ** Math.floor(i / 3));
  const barPaths = (index, count, slot) => {
    const width = (0.8 * slot) / count;
    return uPlot.paths.bars({
      size: [1, Number.POSITIVE_INFINITY],
      disp: {
        x0: { unit: 1, values: (u) => u.data[0].map((x) => x - 0.4 * slot + index * width) },
        size: { unit: 1, values: (u) => u.data[0].map(() => width) },
      },
    });
  };

  // A series given as (index, value) points or as one constant, expanded to one value per x.
  const valuesOf = (s, n) => {
    if (s.values) return s.values;
    const out = new Array(n).fill(s.constant ?? null);
    for (const [i, v] of s.points ?? []) out[i] = v;
    return out;
  };

  function draw(chart) {
    const host = document.getElementById(chart.id);
    const width = Math.max(320, host.clientWidth || 900);
    const categories = chart.xCategories;
    const bars = chart.series.filter((s) => s.kind === 'bars');
    const series = [
      {
        label: chart.xLabel,
        value: (_u, v) => (categories ? (categories[v] ?? '') : fmt(chart.xUnit, v)),
      },
      ...chart.series.map((s) => {
        const out = {
          label: s.label,
          stroke: s.color,
          width: s.kind === 'points' ? 0 : 1.5,
          value: (_u, v) => fmt(chart.yUnit, v),
          spanGaps: false,
        };
        if (s.kind === 'points') out.points = { show: true, size: s.size ?? 5, fill: s.color, stroke: s.color };
        else out.points = { show: false };
        if (s.kind === 'bars') {
          out.fill = s.color;
          out.paths = barPaths(bars.indexOf(s), bars.length, chart.barSlot ?? 1);
        }
        if (s.dash) out.dash = [6, 4];
        return out;
      }),
    ];
    const xAxis = { label: chart.xLabel, values: (_u, ticks) => ticks.map((t) => (categories ? (categories[t] ?? '') : fmt(chart.xUnit, t))) };
    // A count (step, rank, run) has no fractions: uPlot's default increments would label ticks 2.50.
    if (chart.xUnit === 'count') xAxis.incrs = WHOLE_INCREMENTS;
    if (chart.logX) {
      // The measured nEnvs as the ticks, every one labelled (uPlot labels only some ticks of a log axis).
      xAxis.splits = () => chart.x;
      xAxis.filter = (_u, splits) => splits;
    }
    if (categories) {
      xAxis.splits = () => categories.map((_, i) => i);
      const long = categories.some((c) => c.length > 12);
      xAxis.rotate = long ? -20 : 0;
      if (long) xAxis.size = 80;
    }
    const opts = {
      width,
      height: chart.height ?? 260,
      series,
      scales: {
        x: categories
          ? { time: false, range: () => [-0.5, categories.length - 0.5] }
          : chart.barSlot
            ? { time: false, range: () => [chart.x[0] - chart.barSlot / 2, chart.x[chart.x.length - 1] + chart.barSlot / 2] }
            : chart.logX
              ? { time: false, distr: 3, range: () => [chart.x[0] / 1.5, chart.x[chart.x.length - 1] * 1.5] }
              : { time: false },
        y: { range: (_u, min, max) => [chart.yFromZero ? 0 : min, max === min ? max + 1 : max * 1.05] },
      },
      axes: [xAxis, { label: chart.yLabel, size: 70, values: (_u, ticks) => ticks.map((t) => fmt(chart.yUnit, t)), ...(chart.yUnit === 'count' ? { incrs: WHOLE_INCREMENTS } : {}) }],
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
    };
    const data = [chart.x, ...chart.series.map((s) => valuesOf(s, chart.x.length))];
    host.textContent = '';
    const plot = new uPlot(opts, data, host);
    // Series drawn but not listed (the second and later runs of one "each run" set): their legend rows hidden.
    const rows = plot.root.querySelectorAll('.u-legend .u-series');
    chart.series.forEach((s, i) => {
      if (s.legend === false && rows[i + 1]) rows[i + 1].style.display = 'none';
    });
    return plot;
  }

  const drawn = [];
  for (const chart of spec) {
    try {
      drawn.push(draw(chart));
    } catch (e) {
      // A chart that cannot draw says so on the page (and the browser tests see the console error).
      document.getElementById(chart.id).textContent = `chart failed: ${e.message}`;
      console.error(`gsprof chart ${chart.id}: ${e.message}`);
    }
  }
  document.body.dataset.chartsDrawn = String(drawn.length);

  // Sortable tables: cells carry their raw value in data-v (numbers sort as numbers, names as text).
  for (const table of document.querySelectorAll('table.sortable')) {
    const heads = [...table.querySelectorAll('thead th')];
    heads.forEach((th, col) => {
      th.addEventListener('click', () => {
        const body = table.tBodies[0];
        const rows = [...body.rows];
        const numeric = th.dataset.type === 'number';
        const descending = th.getAttribute('aria-sort') !== 'descending';
        const key = (row) => {
          const v = row.cells[col].dataset.v ?? row.cells[col].textContent;
          return numeric ? Number(v) : v;
        };
        rows.sort((a, b) => {
          const x = key(a);
          const y = key(b);
          const c = numeric ? x - y : String(x).localeCompare(String(y));
          return descending ? -c : c;
        });
        for (const h of heads) h.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        for (const row of rows) body.appendChild(row);
      });
    });
  }
})();
