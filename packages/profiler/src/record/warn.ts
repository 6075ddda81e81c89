/** Profiler warnings go to gsprof's one log channel (@gsprof/log) at warning level, as the simulator's do. */
import { logger } from '@gsprof/log';

export function warn(message: string): void {
  logger.warning(message);
}
