/** gs.logger is the one log channel every gsprof package writes to (@gsprof/log). */
export { logger, captureLogs, consoleSink, isLogLevel, Logger } from '@gsprof/log';
export type { LogLevel, LogRecord, LogSink } from '@gsprof/log';
