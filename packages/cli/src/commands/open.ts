import { Args, Flags } from '@oclif/core';
import { GsprofCommand } from '../base.js';
import { DEFAULT_PORT } from '../serve/serve-once.js';

export default class Open extends GsprofCommand {
  static override summary = 'Open a trace in ui.perfetto.dev (serves the one file on loopback until it is fetched).';
  static override description = [
    'Follows Perfetto\'s open_trace_in_ui convention: the file is served on http://127.0.0.1:9001/<file> with `Access-Control-Allow-Origin: https://ui.perfetto.dev`, every other path gets 404, a Host header other than 127.0.0.1, localhost or [::1] with the port gets 403 (no DNS rebinding), and the deep link is printed (and opened in a browser when one is available). A file that cannot be read is reported before anything listens. The command exits once the trace has been served, or on Ctrl-C (exit 130). Nothing is uploaded: the Perfetto UI runs in your browser and reads the file from your machine.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> open out/gsprof.pftrace',
    '<%= config.bin %> open benchmark/host_1234.1700000000000000000.pt.trace.json --no-browser',
    'ssh -L 9001:127.0.0.1:9001 devbox   # then run `gsprof open` on devbox and open the link locally',
  ];
  static override args = {
    trace: Args.string({ description: 'trace file to serve (.pftrace, .json, .json.gz), or a folder (its newest trace)', required: true }),
  };
  static override flags = {
    port: Flags.integer({ description: 'loopback port (the Perfetto UI expects 9001; others are for tests)', default: DEFAULT_PORT, min: 0, max: 65535 }),
    browser: Flags.boolean({ description: 'open the link in a browser when one exists', default: true, allowNo: true }),
  };

  async run(): Promise<{ served: boolean; url: string; deepLink: string }> {
    const { args, flags } = await this.parse(Open);
    const { serveTraceOnce } = await import('../serve/serve-once.js');
    const { resolveTrace } = await import('../views/open-trace.js');
    const trace = resolveTrace(args.trace);
    // Only what loads as a trace is served: the UI would show a file that is not one as an empty timeline.
    // (An unreadable file is left to serveTraceOnce, which says so before serving anything.)
    const { accessSync, constants } = await import('node:fs');
    let readable = true;
    try { accessSync(trace, constants.R_OK); } catch { readable = false; }
    if (readable) await (await import('@gsprof/profiler')).validateTrace(trace);
    const { openBrowser } = await import('../serve/browser.js');
    const controller = new AbortController();
    const onSigint = (): void => controller.abort();
    process.once('SIGINT', onSigint);
    let url = '';
    let deepLink = '';
    try {
      const result = await serveTraceOnce(trace, {
        port: flags.port,
        signal: controller.signal,
        onListening: (info) => {
          url = info.url;
          deepLink = info.deepLink;
          // The link goes to stderr under --json so stdout stays one JSON document.
          const stream = this.jsonEnabled() ? process.stderr : process.stdout;
          stream.write(`Serving ${trace} at ${info.url} (loopback only; Ctrl-C to stop)\n`);
          stream.write(`Open in Perfetto: ${info.deepLink}\n`);
          if (flags.browser) {
            const opener = openBrowser(info.deepLink);
            if (opener) stream.write(`(opened with ${opener})\n`);
          }
        },
      });
      this.print(result.served ? 'Trace served; exiting.' : 'Stopped before the trace was fetched.');
      // Ctrl-C exits 130, as every gsprof command does (docs/cli.md, exit codes).
      if (!result.served && controller.signal.aborted) process.exitCode = 130;
      return { served: result.served, url, deepLink };
    } finally {
      process.off('SIGINT', onSigint);
    }
  }
}
