/**
 * @gsprof/log: the one log channel of every gsprof package (simulator, profiler, CLI). Leveled lines in Genesis'
 * shape (`[gsprof] [14:02:11] [INFO] Running at 812.50 FPS.`); one level and one sink per process, so a program
 * that quiets or captures gsprof's output does it once. The sink is replaceable so tests and tools can capture
 * the lines.
 */

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40 };

export interface LogRecord {
  readonly level: LogLevel;
  readonly message: string;
  readonly time: Date;
}

export type LogSink = (record: LogRecord) => void;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The default sink: info and debug to stdout, warnings and errors to stderr. */
export const consoleSink: LogSink = (r) => {
  const t = r.time;
  const line = `[gsprof] [${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}] [${r.level.toUpperCase()}] ${r.message}\n`;
  (RANK[r.level] >= RANK.warning ? process.stderr : process.stdout).write(line);
};

export class Logger {
  level: LogLevel = 'info';
  private sink: LogSink = consoleSink;

  /** Replaces the sink and returns the previous one. */
  setSink(sink: LogSink | null): LogSink {
    const previous = this.sink;
    this.sink = sink ?? consoleSink;
    return previous;
  }

  isEnabled(level: LogLevel): boolean {
    return RANK[level] >= RANK[this.level];
  }

  log(level: LogLevel, message: string): void {
    if (this.isEnabled(level)) this.sink({ level, message, time: new Date() });
  }

  debug(message: string): void { this.log('debug', message); }
  info(message: string): void { this.log('info', message); }
  warning(message: string): void { this.log('warning', message); }
  error(message: string): void { this.log('error', message); }
}

// One instance per process even if two copies of this package are installed (a hoisting accident, a bundle):
// the channel is process-wide by design.
const KEY = Symbol.for('gsprof.logger');
function processLogger(): Logger {
  const registry = globalThis as Record<symbol, Logger | undefined>;
  registry[KEY] ??= new Logger();
  return registry[KEY];
}
export const logger: Logger = processLogger();

export function isLogLevel(v: unknown): v is LogLevel {
  return typeof v === 'string' && v in RANK;
}

/** Captures every record (at any level enabled by gs.logger.level) until `restore()` is called. */
export function captureLogs(): { records: LogRecord[]; lines(): string[]; restore(): void } {
  const records: LogRecord[] = [];
  const previous = logger.setSink((r) => records.push(r));
  return { records, lines: () => records.map((r) => r.message), restore: () => { logger.setSink(previous); } };
}
