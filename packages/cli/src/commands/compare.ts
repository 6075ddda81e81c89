import { Args, Flags } from '@oclif/core';
import { GsprofCommand, strictFlag } from '../base.js';
import { CliError } from '../errors.js';

export default class Compare extends GsprofCommand {
  static override summary = 'Regression check: exit 0 no regression, 1 regression, 2 bad input.';
  static override description = [
    'Compares two runs metric by metric (step time, each kernel\'s time, FPS, solver iteration counts). Each input is a baseline JSON written by `gsprof record --baseline-out` or a trace. By default a metric regresses when it is slower by more than --factor AND a two-sided Mann-Whitney U test on the per-step samples gives p < 0.002 (asv\'s rule, with a 99% confidence-interval fallback for few samples). --method ttest uses Welch\'s t-test; --method percent uses the factor alone.',
    'With GITHUB_STEP_SUMMARY set (GitHub Actions), the markdown table is appended to that file.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> compare traces/baselines/franka-cpu.json out/current.json',
    '<%= config.bin %> compare base.pftrace new.pftrace --factor 1.05 --method ttest',
    '<%= config.bin %> compare traces/baselines/franka-cpu.json out/current.json --format junit > perf.xml',
  ];
  static override enableJsonFlag = true;
  static override args = {
    baseline: Args.string({ description: 'baseline JSON or trace', required: true }),
    current: Args.string({ description: 'current baseline JSON or trace', required: true }),
  };
  static override flags = {
    strict: strictFlag,
    factor: Flags.string({ description: 'slowdown factor that counts as worse', default: '1.1' }),
    method: Flags.string({ description: 'decision rule', options: ['mannwhitney', 'ttest', 'percent'], default: 'mannwhitney' }),
    'fail-on': Flags.string({ description: 'what makes the exit code 1', options: ['worse', 'never'], default: 'worse' }),
    format: Flags.string({ description: 'output format', options: ['table', 'markdown', 'json', 'junit'], default: 'table' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Compare);
    const factor = Number(flags.factor);
    if (!Number.isFinite(factor) || factor < 1) throw new CliError('--factor', `'${flags.factor}' must be a number >= 1`);
    const { compareReport } = await import('../views/compare.js');
    const format = this.jsonEnabled() ? 'json' : (flags.format as 'table' | 'markdown' | 'json' | 'junit');
    const view = await compareReport(args.baseline, args.current, {
      factor, method: flags.method as 'mannwhitney' | 'ttest' | 'percent', format, color: this.color,
    });
    if (process.env.GITHUB_STEP_SUMMARY) {
      const { appendFileSync } = await import('node:fs');
      appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${view.markdown}\n\n`);
    }
    if (!this.jsonEnabled()) this.print(view.text);
    if (view.regressed && flags['fail-on'] === 'worse') process.exitCode = 1;
    return view.data;
  }
}
