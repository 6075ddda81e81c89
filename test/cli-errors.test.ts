/** Bad input: one line `gsprof: <what>: <why>`, exit 2, no stack; `--json` errors are `{error: {message, exit}}`. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, expectOneLineError, gsprof, tempDir } from './support/cli.js';

describe('bad input', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
  });

  it('a missing trace', async () => {
    expectOneLineError(await gsprof(['summary', join(dir, 'nope.pftrace')]), /nope\.pftrace: no such file/);
  });

  it('a corrupt Perfetto trace names the file and the byte offset', async () => {
    const f = join(dir, 'bad.pftrace');
    writeFileSync(f, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expectOneLineError(await gsprof(['gaps', f]), /bad\.pftrace.*byte/);
  });

  it('broken JSON names the file and where', async () => {
    const f = join(dir, 'bad.json');
    // One broken event beside a usable one: the usable one loads (a file of only broken events also warns that it
    // has no usable events, a second true line).
    writeFileSync(f, '{"traceEvents": [ {"ph": "X", "ts": 1,, }, {"ph": "X", "name": "k", "pid": 1, "tid": 1, "ts": 2, "dur": 1} ]}');
    expectOneLineError(await gsprof(['summary', f, '--strict']), /bad\.json: line 1/);
    // Lenient by default (as Perfetto): loaded, with one warning line giving the counts.
    const r = await gsprof(['summary', f]);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gsprof: warning: .*bad\.json: .*json_parser_failure 1 .*--strict/)]);
    // query warns the same way (issue 35), and its stats table holds the count under trace_processor's name.
    const q = await gsprof(['query', f, "select value from stats where name = 'json_parser_failure'", '--format', 'csv']);
    expect(q.code).toBe(0);
    expect(q.stdout.trim().split('\n')).toEqual(['value', '1']);
    expect(q.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gsprof: warning: .*bad\.json: .*json_parser_failure 1/)]);
  });

  it('JSON that is not a trace is refused by every data command, saying it was read as JSON (issue 15)', async () => {
    const f = join(dir, 'package.json');
    writeFileSync(f, JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { a: '1' } }));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify([{ ph: 'X', name: 'k', cat: 'kernel', pid: 0, tid: 7, ts: 1, dur: 1 }]));
    expectOneLineError(await gsprof(['summary', f]), /package\.json: .*read as JSON.*not a Chrome\/Kineto trace/);
    expectOneLineError(await gsprof(['diff', good, f]), /package\.json: .*not a Chrome\/Kineto trace/);
    const out = join(dir, 'out.pftrace');
    expectOneLineError(await gsprof(['convert', f, out]), /package\.json: .*not a Chrome\/Kineto trace/);
    expect(existsSync(out)).toBe(false);
  });

  it('a JSON scalar is not read as protobuf; ts 1e300 (with --strict), 1e6-deep nesting and a directory entry get one line each (issue 15)', async () => {
    const scalar = join(dir, 'scalar.json');
    writeFileSync(scalar, '42\n');
    expectOneLineError(await gsprof(['summary', scalar]), /scalar\.json: byte 0: not a trace: a JSON value/);
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},\n{"ph":"X","name":"b","pid":1,"tid":1,"ts":1e300,"dur":1}]');
    // --strict: one line naming the event; by default the event is dropped and counted, as trace_processor (issue 35).
    expectOneLineError(await gsprof(['summary', huge, '--strict']), /huge\.json: line 2 \(byte \d+\): time 1e\+300 µs is out of range/);
    const lenient = await gsprof(['summary', huge]);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gsprof: warning: .*huge\.json: .*json_tokenizer_failure 1/)]);
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, `[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"args":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}]`);
    expectOneLineError(await gsprof(['summary', deep]), /deep\.json: line 1 \(byte 1\): .*nested too deeply/);
    const folder = join(dir, 'folder');
    mkdirSync(join(folder, 'x.json'), { recursive: true });
    // A directory named like a trace is not a trace: the folder is said to hold none.
    expectOneLineError(await gsprof(['summary', folder]), /folder: folder has no trace/);
    expectOneLineError(await gsprof(['summary', join(folder, 'x.json')]), /x\.json: /);
  });

  it('compare: a missing baseline is bad input (exit 2), not a regression', async () => {
    expectOneLineError(await gsprof(['compare', join(dir, 'none.json'), join(dir, 'none2.json')]), /none\.json: no such file/);
  });

  it('unknown flags, options and commands', async () => {
    expectOneLineError(await gsprof(['record', '--example', 'cartpole']), /--example/);
    expectOneLineError(await gsprof(['summary']), /Missing 1 required arg/);
    expectOneLineError(await gsprof(['frobnicate']), /^gsprof: frobnicate: not a gsprof command; run 'gsprof help' for the commands$/);
    expectOneLineError(await gsprof(['compare', 'a', 'b', '--factor', 'fast']), /--factor: 'fast' must be a number >= 1/);
  });

  it('--json errors are one JSON object with the message and exit code', async () => {
    const r = await gsprof(['summary', join(dir, 'nope.pftrace'), '--json']);
    expect(r.code).toBe(2);
    const parsed = JSON.parse(r.stdout) as { error: { message: string; exit: number } };
    expect(parsed).toEqual({ error: { message: expect.stringMatching(/nope\.pftrace: no such file/), exit: 2 } });
  });

  it('DEBUG=1 adds the stack for bug reports', async () => {
    const r = await gsprof(['summary', join(dir, 'nope.pftrace')], { env: { DEBUG: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^gsprof: .*no such file\n/);
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it('--help lists every command with a summary, and each command has examples', async () => {
    const top = await gsprof(['--help']);
    expect(top.code).toBe(0);
    for (const c of ['record', 'summary', 'gaps', 'timers', 'compare', 'diff', 'query', 'open', 'convert', 'bench']) {
      expect(top.stdout).toMatch(new RegExp(`^  ${c}\\s+\\S`, 'm'));
    }
    const record = await gsprof(['record', '--help']);
    expect(record.stdout).toContain('EXAMPLES');
    expect(record.stdout).toContain('--fresh-cache');
    // oclif wraps long example lines with a trailing backslash.
    expect(record.stdout.replace(/\\\n\s*/g, '')).toContain('--active 10 -- node examples/profiling/webgpu-compute.mjs');
  });
});
