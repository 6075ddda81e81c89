import { constants as osConstants } from 'node:os';
import { Flags } from '@oclif/core';
import { GsprofCommand } from '../base.js';
import { CliError } from '../errors.js';

/** Sizes that finish in seconds on a CPU; the seed scripts' sizes are one flag away. */
const RECORD_DEFAULTS = { nEnvs: 1024, steps: 200 } as const;

export default class Record extends GsprofCommand {
  static override summary = 'Record a built-in scenario, your own model, or any Node WebGPU or sim-core program, into Perfetto/Chrome traces.';
  static override description = [
    'With --example, builds the scenario with @gsprof/sim-core, prints Genesis-style FPS lines while it steps, and records every kernel (GPU timestamps on the gpu backend, CPU spans on the cpu backend), the steps, the compile spans and the per-env solver timers under a torch.profiler schedule. It ends with the kernel summary and the paths written.',
    'With --scene FILE, records your own MJCF or URDF model the same way, every hinge and slide joint driven by --control.',
    'After `--`, runs that command instead: a Node program that uses WebGPU through the `webgpu` package, or @gsprof/sim-core on either backend, is loaded with an instrumentation module (`node --import`) that instruments every device it creates and takes sim-core\'s stage spans. Its steps are its explicit `globalThis.gsprof?.step()` marks if it makes any, else its sim-core scene steps, else its queue submits. The trace is written when the program exits or fails, or on Ctrl-C (SIGINT, SIGTERM and SIGHUP are passed on to it); gsprof exits with the program\'s exit code.',
    'With no schedule flag, the first steps (up to 10) warm up and all the others are recorded once. The timers example mirrors Genesis\' timers.py (ANYmal, 128 envs, 500 steps, dt 0.02 x 2 substeps, 1 solver iteration) and plots its three panels at the end, unless --profiling.',
  ].join('\n\n');
  static override examples = [
    { description: 'Record 200 steps of 64 Franka envs on the default backend', command: '<%= config.bin %> record --example franka --n-envs 64 --steps 200' },
    { description: 'GPU, baked shapes, a cold shader cache, and a sync before every step', command: '<%= config.bin %> record --example franka --backend gpu --performance-mode --fresh-cache --sync' },
    { description: 'torch-style schedule: skip 20 steps, then 5 warmup + 10 active, twice', command: '<%= config.bin %> record --example anymal_c --skip-first 20 --warmup 5 --active 10 --repeat 2' },
    { description: 'The seed\'s timers.py (per-env solver timers, three panels)', command: '<%= config.bin %> record --example timers --backend cpu' },
    { description: 'Write a baseline for `gsprof compare`', command: '<%= config.bin %> record --example franka --n-envs 64 --steps 200 --baseline-out traces/baselines/franka-cpu.json' },
    { description: 'Record your own model: 256 envs holding its initial pose', command: '<%= config.bin %> record --scene my_robot.xml --n-envs 256 --steps 300' },
    { description: 'A URDF on a ground plane, joint targets jittered by up to 0.2 rad', command: '<%= config.bin %> record --scene robot.urdf --control random:0.2 --seed 1' },
    { description: 'Profile an unmodified WebGPU program', command: '<%= config.bin %> record --active 10 -- node examples/profiling/webgpu-compute.mjs --frames 20' },
    { description: 'Two ranks of a program, one per adapter, each with its own trace; then one timeline', command: '<%= config.bin %> record --nproc 2 -- node examples/multi-gpu/rank.mjs && <%= config.bin %> merge out -o out/merged.pftrace' },
  ];
  static override strict = false;
  static override enableJsonFlag = true;
  static override flags = {
    example: Flags.string({ description: 'built-in scenario', options: ['franka', 'anymal_c', 'timers'], default: 'franka' }),
    scene: Flags.string({ description: 'record your own model instead of --example: an MJCF (.xml) or URDF (.urdf) file (a URDF gets a ground plane)' }),
    control: Flags.string({ description: 'with --scene: hold (position targets at the initial pose), zero (zero force) or random[:AMPLITUDE] (initial pose + uniform noise, default 0.1, from --seed), on every hinge and slide joint', default: 'hold' }),
    backend: Flags.string({ description: 'simulation backend (auto: a hardware WebGPU adapter if there is one, else the CPU)', options: ['auto', 'cpu', 'gpu'], default: 'auto' }),
    'n-envs': Flags.integer({ description: 'parallel environments, 0 = unbatched (default: 1024; timers 128 as the seed; the seed\'s speed benchmarks use 30000)', min: 0 }),
    steps: Flags.integer({ description: 'steps to run (default: 200; timers 500 as the seed)', min: 1 }),
    dt: Flags.string({ description: 'time step in seconds (default: the example\'s)' }),
    'performance-mode': Flags.boolean({ description: 'bake shapes into the kernels (faster steps, recompiles per scene)', default: false }),
    seed: Flags.integer({ description: 'random seed (timers noise, --control random)', default: 0 }),
    'noise-mode': Flags.integer({ description: 'timers example: 0 no noise, 1 shared noise, 2 per-env noise', options: ['0', '1', '2'] as never, min: 0, max: 2, default: 2 }),
    profiling: Flags.boolean({ description: 'timers example: as timers.py --profiling, one trace of the whole loop in ./benchmark (Chrome JSON) instead of the plots', default: false }),
    wait: Flags.integer({ description: 'schedule: steps ignored at the start of each cycle', min: 0, helpGroup: 'SCHEDULE' }),
    warmup: Flags.integer({ description: 'schedule: steps recorded then discarded', min: 0, helpGroup: 'SCHEDULE' }),
    active: Flags.integer({ description: 'schedule: steps recorded per cycle', min: 1, helpGroup: 'SCHEDULE' }),
    repeat: Flags.integer({ description: 'schedule: cycles (0 = until the run ends)', min: 0, helpGroup: 'SCHEDULE' }),
    'skip-first': Flags.integer({ description: 'schedule: steps skipped once before the first cycle', min: 0, helpGroup: 'SCHEDULE' }),
    'steps-from': Flags.string({ description: 'with -- <program>: what a step is: its gsprof.step() marks, its queue submits, or auto (marks when its script calls gsprof.step(), else submits until the first mark)', options: ['auto', 'marks', 'submits'], default: 'auto' }),
    sync: Flags.boolean({ description: 'wait for the GPU before every step (aligns timelines; can halve throughput)', default: false }),
    'profile-memory': Flags.boolean({ description: 'a counter track of live GPU buffer bytes per device (torch\'s profile_memory; WebGPU devices only)', default: false }),
    'fresh-cache': Flags.boolean({ description: 'use a throwaway driver shader cache for this run (cold compile, persistent cache untouched)', default: false }),
    out: Flags.string({ description: 'folder for the traces', default: 'out' }),
    format: Flags.string({ description: 'trace format(s) to write', options: ['perfetto', 'json', 'both'], default: 'both' }),
    'baseline-out': Flags.string({ description: 'also write the compare baseline (JSON) to this file' }),
    'reset-on-error': Flags.boolean({ description: 'reset envs that go NaN or blow up and go on (rigidOptions.resetOnError), instead of stopping at the first; the end says how many envs were reset and how often', default: false }),
    'physics-counters': Flags.boolean({ description: 'sim-core\'s per-step counter tracks (solver iterations, contacts, constraints, env resets) and per-env events (env reset, env nan, solver not converged) (--no-physics-counters: leave them out)', default: true, allowNo: true }),
    fps: Flags.boolean({ description: 'print the FPS lines (--no-fps: quiet)', default: true, allowNo: true }),
    nproc: Flags.integer({ description: 'with -- <program>: run N ranks of it at once, as torchrun --standalone --nproc-per-node N does (RANK, LOCAL_RANK, WORLD_SIZE; GSPROF_ADAPTER=LOCAL_RANK unless set); each rank writes <name>.rank<k> traces, summarised per rank with the straggler view', min: 1, default: 1 }),
    'term-grace': Flags.integer({ description: 'with --nproc: when a rank fails, the other ranks get SIGTERM, then SIGKILL after this many seconds (as torchrun does); a second Ctrl-C kills at once', min: 0, default: 30 }),
    runs: Flags.integer({ description: 'independent runs, each in a fresh process, merged into one baseline for compare (written to --baseline-out, else OUT/baseline.json; traces in OUT/run-K)', min: 1, default: 1 }),
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Record);
    // The program is everything after the first `--`, verbatim (oclif's parsed argv drops and reorders tokens
    // that look like flag values).
    const dashes = this.argv.indexOf('--');
    const command = dashes >= 0 ? this.argv.slice(dashes + 1) : [];
    if (dashes >= 0 && command.length === 0) throw new CliError('record --', 'no program after -- (name the program to profile, or drop -- to record --example)');
    const stray = (argv as string[]).filter((a) => a !== '--' && !command.includes(a));
    if (stray.length > 0) throw new CliError('record', `unexpected argument '${stray[0]}' (put the program to profile after --)`);
    if (flags['baseline-out'] !== undefined) {
      // The scene, or a file the program is given (its script, its data): never replaced by the baseline.
      const { refuseOwnInput } = await import('../views/own-input.js');
      refuseOwnInput('record', flags['baseline-out'], [...(flags.scene !== undefined ? [flags.scene] : []), ...command]);
    }
    const { scheduleFromFlags } = await import('../record/schedule-flags.js');
    const scheduleFlags = { wait: flags.wait, warmup: flags.warmup, active: flags.active, repeat: flags.repeat, skipFirst: flags['skip-first'] };
    const format = flags.format as 'perfetto' | 'json' | 'both';
    const { liveProgressEnabled } = await import('../render/color.js');

    if (flags['reset-on-error'] && command.length > 0) throw new CliError('--reset-on-error', 'applies to --example and --scene: a program sets rigidOptions.resetOnError on its own scenes');
    if (flags.nproc > 1 && command.length === 0) throw new CliError('--nproc', 'starts several copies of a program: put the program after -- (e.g. record --nproc 2 -- node rank.mjs)');
    if (flags.nproc > 1 && flags.runs > 1) throw new CliError('--nproc', 'cannot be combined with --runs yet: record each multi-rank run on its own, with its own --out');
    if (flags.nproc > 1) {
      const { recordRanks } = await import('../record/run-program.js');
      const result = await recordRanks({
        command, schedule: scheduleFromFlags(scheduleFlags, undefined), sync: flags.sync, profileMemory: flags['profile-memory'], outDir: flags.out, format,
        freshCache: flags['fresh-cache'], stepsFrom: flags['steps-from'] as 'auto' | 'marks' | 'submits', physicsCounters: flags['physics-counters'],
        termGraceS: flags['term-grace'],
      }, flags.nproc);
      for (const r of result.ranks) {
        const ending = r.signal !== null ? `, killed by ${r.signal}` : r.exitCode !== 0 ? `, exit code ${r.exitCode}` : '';
        this.print(`rank ${r.rank}: ${r.steps} steps (${r.stepMode}), ${r.devices} device(s) instrumented${ending}`);
      }
      const traces = result.ranks.flatMap((r) => r.traces);
      const { primaryTrace } = await import('../views/record-report.js');
      const perRank = result.ranks.map((r) => primaryTrace(r.traces)).filter((t): t is string => t !== undefined);
      let data: unknown = null;
      if (perRank.length > 0) {
        const { rankRuns } = await import('../views/rank-traces.js');
        const { statSync } = await import('node:fs');
        const [run] = await rankRuns(perRank.map((path) => ({ path, mtimeMs: statSync(path).mtimeMs })));
        if (run) {
          const view = await (await import('../views/rank-reports.js')).rankSummary(run, { color: this.color });
          this.print(view.text);
          data = view.data;
        }
      }
      for (const t of traces) this.print(`wrote ${t}`);
      // A rank's crash or failing exit code is the run's: the first failing rank's status becomes gsprof's.
      const failed = result.firstFailed !== null ? result.ranks[result.firstFailed]
        : result.ranks.find((r) => r.signal !== null || (r.exitCode !== 0 && r.exitCode !== null));
      if (failed) {
        const number = failed.signal !== null ? (osConstants.signals[failed.signal as NodeJS.Signals] ?? 0) : 0;
        const what = failed.signal !== null ? `killed by ${failed.signal}` : `exited with code ${failed.exitCode}`;
        const others = result.stoppedRanks > 0 ? ` first; ${result.stoppedRanks} other rank(s) still running were stopped (SIGTERM, then SIGKILL after --term-grace)` : '';
        throw new CliError(`rank ${failed.rank}`, `${what}${others}`, failed.signal !== null ? 128 + number : failed.exitCode!);
      }
      if (traces.length === 0) throw new CliError('record', `${command[0]} wrote no trace on any rank (did it take a step, with a WebGPU device from the 'webgpu' package or a @gsprof/sim-core scene?)`);
      return { ...result, summary: data };
    }

    if (flags.runs > 1) {
      const { recordRuns } = await import('../record/runs.js');
      const { join } = await import('node:path');
      const baselineOut = flags['baseline-out'] ?? join(flags.out, 'baseline.json');
      const result = await recordRuns(this.argv, flags.runs, flags.out, baselineOut, (line) => this.print(line));
      this.print(`wrote ${baselineOut} (baseline of ${flags.runs} runs)`);
      return result;
    }

    if (command.length > 0) {
      const { recordProgram } = await import('../record/run-program.js');
      const result = await recordProgram({
        command, schedule: scheduleFromFlags(scheduleFlags, undefined), sync: flags.sync, profileMemory: flags['profile-memory'], outDir: flags.out, format, freshCache: flags['fresh-cache'],
        physicsCounters: flags['physics-counters'],
        stepsFrom: flags['steps-from'] as 'auto' | 'marks' | 'submits',
      });
      const { reportRecording } = await import('../views/record-report.js');
      const report = await reportRecording(result.traces, { color: this.color, json: this.jsonEnabled(), baselineOut: flags['baseline-out'] });
      this.print(`${command.join(' ')}: ${result.steps} steps (${result.stepMode}), ${result.devices} device(s) instrumented`);
      if (result.submitStepsBeforeMark > 0) process.emitWarning(`--steps-from auto counted ${result.submitStepsBeforeMark} queue submit(s) as steps before the program's first gsprof.step() mark (it marks from an imported module); those steps split its first marked step: rerun with --steps-from marks`);
      this.print(report.text);
      // The program's own ending comes first: a crash or a failing exit code is what the user must see, with
      // gsprof's exit status the program's (128 + signal number when it was killed, as a shell reports it).
      if (result.signal !== null) {
        const number = osConstants.signals[result.signal as NodeJS.Signals] ?? 0;
        throw new CliError(command[0] ?? 'record', `killed by ${result.signal}${result.traces.length === 0 ? ' (no trace written)' : ''}`, 128 + number);
      }
      if (result.exitCode !== 0 && result.exitCode !== null) {
        if (result.traces.length === 0) throw new CliError(command[0] ?? 'record', `exited with code ${result.exitCode} (no trace written)`, result.exitCode);
        process.exitCode = result.exitCode;
      }
      if (result.traces.length === 0) throw new CliError('record', `${command[0]} wrote no trace (did it take a step, with a WebGPU device from the 'webgpu' package or a @gsprof/sim-core scene?)`);
      return { ...result, ...report.data };
    }

    let dt: number | undefined;
    if (flags.dt !== undefined) {
      dt = Number(flags.dt);
      if (!Number.isFinite(dt) || dt <= 0) throw new CliError('--dt', `'${flags.dt}' is not a positive number of seconds`);
    }
    if (flags.scene !== undefined && this.argv.some((a) => a === '--example' || a.startsWith('--example='))) {
      throw new CliError('--scene', 'give either --scene FILE or --example NAME, not both');
    }
    if (flags.scene === undefined && this.argv.some((a) => a === '--control' || a.startsWith('--control='))) {
      throw new CliError('--control', 'only applies to --scene FILE');
    }
    const scene = flags.scene === undefined ? undefined : { file: flags.scene, control: (await import('../scenarios/scene-file.js')).parseControl(flags.control) };
    const example = scene ? (await import('node:path')).basename(scene.file) : flags.example;
    const profiling = flags.example === 'timers' && flags.profiling && !scene;
    const { recordExample } = await import('../record/run-example.js');
    const result = await recordExample({
      example,
      ...(scene ? { scene } : {}),
      backend: flags.backend as 'auto' | 'cpu' | 'gpu',
      ...(flags['n-envs'] !== undefined ? { nEnvs: flags['n-envs'] } : flags.example === 'timers' ? {} : { nEnvs: RECORD_DEFAULTS.nEnvs }),
      ...(flags.steps !== undefined ? { steps: flags.steps } : flags.example === 'timers' ? {} : { steps: RECORD_DEFAULTS.steps }),
      ...(dt !== undefined ? { dt } : {}),
      performanceMode: flags['performance-mode'],
      showFPS: flags.fps && !this.jsonEnabled(),
      quiet: this.jsonEnabled(),
      seed: flags.seed,
      noiseMode: flags['noise-mode'] as 0 | 1 | 2,
      resetOnError: flags['reset-on-error'],
      physicsCounters: flags['physics-counters'],
      // timers.py --profiling: torch.profiler(schedule(wait=0, warmup=0, active=1)) around a loop that never calls
      // prof.step(), so the whole loop is its one recorded step: here, every step in one trace, in ./benchmark.
      schedule: (steps) => (profiling ? { wait: 0, warmup: 0, active: steps, repeat: 1, skipFirst: 0 } : scheduleFromFlags(scheduleFlags, steps)),
      sync: flags.sync,
      profileMemory: flags['profile-memory'],
      freshCache: flags['fresh-cache'],
      outDir: profiling && flags.out === 'out' ? 'benchmark' : flags.out,
      format: profiling && flags.format === 'both' ? 'json' : format,
      liveProgress: liveProgressEnabled() && !this.jsonEnabled(),
      progress: !this.jsonEnabled(),
      envTimers: true,
    });
    const { reportRecording } = await import('../views/record-report.js');
    const report = await reportRecording(result.traces, {
      color: this.color, json: this.jsonEnabled(), baselineOut: flags['baseline-out'], timersPanels: flags.example === 'timers' && !profiling,
    });
    const { thousands } = await import('../render/format.js');
    const recorded = result.steps > result.recordedFrom
      ? `from step ${result.recordedFrom}, where recording starts: ${thousands(result.envStepsPerSecond, 0)} env-steps/s (${thousands(result.steps - result.recordedFrom)} steps completed in ${result.recordedSeconds.toFixed(3)} s, from the first one's start to the last one's completion)`
      : `recording starts at step ${result.recordedFrom}: none recorded`;
    const { recordedRanges } = await import('@gsprof/profiler');
    const ranges = recordedRanges(result.schedule, result.steps);
    const inRanges = ranges.reduce((n, [a, b]) => n + b - a + 1, 0);
    // A schedule that stops recording (--repeat) or pauses (--wait/--warmup each cycle) leaves steps in that
    // period that no trace holds: say which steps the traces time, so the run line is not read as theirs.
    const notAllRecorded = result.steps > result.recordedFrom && inRanges < result.steps - result.recordedFrom
      ? `; the traces hold ${thousands(inRanges)} of them (steps ${ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ')}), and each trace's summary times its own`
      : '';
    this.print(`${result.example} on ${result.backend}: built in ${result.buildSeconds.toFixed(2)} s, first step ${result.firstStepSeconds.toFixed(2)} s; ${result.steps} steps x ${result.nEnvs} envs stepped in ${result.stepSeconds.toFixed(2)} s (${thousands(result.allStepsEnvStepsPerSecond, 0)} env-steps/s); ${recorded}${notAllRecorded}; traces written in ${result.writeSeconds.toFixed(2)} s`);
    this.print(report.text);
    const ev = result.envEvents;
    if (flags['reset-on-error'] || ev.resets > 0) {
      const reasons = Object.entries(ev.byReason).filter(([, n]) => n > 0).map(([r, n]) => `${r} ${thousands(n)}`).join(', ');
      this.print(ev.resets === 0 ? 'env resets: none'
        : `env resets: ${thousands(ev.resets)} (${reasons}) of ${thousands(ev.envsReset)} env${ev.envsReset === 1 ? '' : 's'}, at most ${ev.maxResetsOfOneEnv} of one env; \`gsprof envs\` on the trace lists them`);
    }
    if (result.interrupted) {
      // The run was cut short: say so, say what holds its steps, and exit as a shell reports the signal.
      const held = result.traces.length > 1 ? 'the traces above hold the steps recorded until then'
        : result.traces.length === 1 ? 'the trace above holds the steps recorded until then' : 'no trace written (no step had been recorded yet)';
      process.stderr.write(`gsprof: record: interrupted by ${result.interrupted} after ${thousands(result.steps)} of ${thousands(result.stepsRequested)} steps; ${held}\n`);
      process.exitCode = 128 + (osConstants.signals[result.interrupted] ?? 0);
    }
    const { scenario: _scenario, ...data } = result;
    return { ...data, recordedSteps: ranges, ...report.data };
  }
}
