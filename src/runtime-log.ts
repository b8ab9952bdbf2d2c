import {
  DefaultLogger,
  makeTelemetryFilterString,
  Runtime,
  type LogEntry,
  type LogLevel,
} from '@temporalio/worker';
import { ConfigurationError } from './errors.ts';

/** How much a worker logs, from most to least: Temporal's levels. */
export type WorkerLogLevel = LogLevel;

const LEVELS: readonly WorkerLogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/**
 * The worker's log level: the option, else `TOOLKIT_AGENT_LOG_LEVEL`, else `fallback`. Either may
 * be given in any case (`debug`, `DEBUG`).
 *
 * @throws ConfigurationError for a level that is not one of TRACE, DEBUG, INFO, WARN, ERROR.
 */
export function resolveLogLevel(
  option: string | undefined,
  fallback: WorkerLogLevel,
  env: NodeJS.ProcessEnv = process.env,
): WorkerLogLevel {
  const [given, source] =
    option !== undefined ? [option, 'logLevel'] : [env.TOOLKIT_AGENT_LOG_LEVEL, 'TOOLKIT_AGENT_LOG_LEVEL'];
  if (given === undefined || given === '') return fallback;
  const level = given.toUpperCase() as WorkerLogLevel;
  if (!LEVELS.includes(level)) {
    throw new ConfigurationError(`${source} is "${given}"; use one of ${LEVELS.join(', ')}.`);
  }
  return level;
}

/**
 * Installs the process's Temporal runtime with a logger at `level`, unless one is installed already
 * (an application's own `Runtime.install` wins; the level then is the application's). Returns
 * whether it installed it.
 */
export function installWorkerRuntime(options: {
  level: WorkerLogLevel;
  /** One line per entry (for a terminal UI): the message and its error's message, no metadata dump. */
  oneLine?: boolean;
  /** Signals on which Temporal stops the process's workers; default Temporal's (SIGINT, SIGTERM, ...). */
  shutdownSignals?: NodeJS.Signals[];
}): boolean {
  if (Runtime._instance) return false;
  const logger = options.oneLine
    ? new DefaultLogger(options.level, (entry) => process.stderr.write(`${oneLine(entry, options.level)}\n`))
    : new DefaultLogger(options.level);
  Runtime.install({
    logger,
    ...(options.shutdownSignals ? { shutdownSignals: options.shutdownSignals } : {}),
    // One line per entry means Temporal's native core logs through the same logger (it prints its
    // own multi-line records to the console otherwise).
    ...(options.oneLine
      ? {
          telemetryOptions: {
            logging: { forward: {}, filter: makeTelemetryFilterString({ core: options.level }) },
          },
        }
      : {}),
  });
  return true;
}

/**
 * A log entry as one line: `WARN Activity failed: <the error's first line> (activityType, attempt)`.
 * At DEBUG and TRACE the error's stack follows, for whoever asked for the detail.
 */
export function oneLine(entry: LogEntry, level: WorkerLogLevel): string {
  const meta = (entry.meta ?? {}) as Record<string, unknown>;
  const error = meta.error ?? meta.failure;
  const reason = error instanceof Error ? error.message : typeof error === 'string' ? error : undefined;
  const parts: string[] = [];
  if (typeof meta.activityType === 'string') parts.push(meta.activityType);
  if (typeof meta.attempt === 'number') parts.push(`attempt ${meta.attempt}`);
  const where = parts.join(', ');
  let line = `${entry.level} ${entry.message}`;
  if (reason) line += `: ${reason.split('\n')[0]}`;
  if (where) line += ` (${where})`;
  const detailed = level === 'DEBUG' || level === 'TRACE';
  if (detailed && error instanceof Error && error.stack) line += `\n${error.stack}`;
  return line;
}
