import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';
import { CliError } from '../errors.js';

export default class Compare extends GsprofCommand {
  static override summary = 'Regression check: exit 0 no regression, 1 regression, 2 bad input.';
  static override description = [
    'Compares two sets of runs. Each side is a baseline JSON written by `gsprof record --runs N --baseline-out`, a trace (one run), or a folder of them (all of them runs of that side). A run (one process) is the sample: each run gives its fastest step time (--statistic; interference on a shared machine only adds time, so the least disturbed step agrees far better between runs than the median). Step time decides: it regresses when the median over runs is slower by more than --factor AND a two-sided Mann-Whitney U test over the run values gives p < 0.002 (asv\'s rule; exact p for up to 20 runs). With fewer than 7 runs per side no outcome can reach that p, and the output says so. Kernels and counters explain the change; --fail-on-kernels makes kernels decide too. --method ttest uses Welch\'s t-test; --method percent the factor alone.',
    'Runs of different scenes, backends, nEnvs, precisions or adapters are refused (exit 2) unless --allow-config-change; other differences (machine, versions) are printed as warnings. Each side\'s run-to-run spread is printed; when it is larger than the factor, the machine is too noisy for that factor and the output says so.',
    'Runs of a multi-process job (traces or baselines with a rank) are compared rank by rank: rank k\'s runs against rank k\'s, each with its own table, then a line per rank and the slowest rank of each side; the check fails when any rank regressed.',
    'With GITHUB_STEP_SUMMARY set (GitHub Actions), the markdown table is appended to that file.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> compare traces/baselines/franka-cpu.json out/current.json',
    '<%= config.bin %> compare base.pftrace new.pftrace --factor 1.05 --method ttest',
    '<%= config.bin %> compare traces/baselines/franka-cpu.json out/current.json --format junit > perf.xml',
  ];
  static override enableJsonFlag = true;
  static override args = {
    baseline: Args.string({ description: 'baseline JSON, trace, or a folder of them', required: true }),
    current: Args.string({ description: 'current baseline JSON, trace, or a folder of them', required: true }),
  };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    factor: Flags.string({ description: 'slowdown factor that counts as worse', default: '1.1' }),
    method: Flags.string({ description: 'decision rule', options: ['mannwhitney', 'ttest', 'percent'], default: 'mannwhitney' }),
    'fail-on': Flags.string({ description: 'what makes the exit code 1', options: ['worse', 'never'], default: 'worse' }),
    format: Flags.string({ description: 'output format', options: ['table', 'markdown', 'json', 'junit'], default: 'table' }),
    'fail-on-kernels': Flags.boolean({ description: 'kernels decide too (default: only step time fails the check; kernels explain it)', default: false }),
    statistic: Flags.string({ description: 'what each run contributes: the minimum, the 10th percentile or the median of its step (and kernel) times (median: also catches a change that slows only some steps)', options: ['min', 'p10', 'median'], default: 'min' }),
    html: Flags.string({ description: 'also write the comparison as a self-contained HTML page: per metric both sides\' runs, the decision, p and the spread' }),
    'allow-config-change': Flags.boolean({ description: 'compare runs of different scenes, backends, nEnvs, precisions or adapters', default: false }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Compare);
    const factor = Number(flags.factor);
    if (!Number.isFinite(factor) || factor < 1) throw new CliError('--factor', `'${flags.factor}' must be a number >= 1`);
    const { compareReport } = await import('../views/compare.js');
    const format = this.jsonEnabled() ? 'json' : (flags.format as 'table' | 'markdown' | 'json' | 'junit');
    const view = await compareReport(args.baseline, args.current, {
      factor, method: flags.method as 'mannwhitney' | 'ttest' | 'percent', format, color: this.color,
      failOnKernels: flags['fail-on-kernels'], allowConfigChange: flags['allow-config-change'], statistic: flags.statistic as 'min' | 'p10' | 'median',
      ...(process.env.GITHUB_STEP_SUMMARY ? { output: process.env.GITHUB_STEP_SUMMARY } : {}),
      ...(flags.html !== undefined ? { html: flags.html } : {}),
    });
    if (flags.html !== undefined) {
      const { comparePage } = await import('../render/html/compare-page.js');
      const { writeFileAtomic } = await import('@gsprof/profiler');
      await writeFileAtomic(flags.html, comparePage(args.baseline, args.current, view.results, flags.method));
      if (!this.jsonEnabled()) process.stderr.write(`wrote ${flags.html}\n`);
    }
    if (process.env.GITHUB_STEP_SUMMARY) {
      const { appendFileSync } = await import('node:fs');
      appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${view.markdown}\n\n`);
    }
    if (!this.jsonEnabled()) this.print(view.text);
    if (view.regressed && flags['fail-on'] === 'worse') process.exitCode = 1;
    return view.data;
  }
}
