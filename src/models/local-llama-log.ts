import { stripVTControlCharacters } from 'node:util';
import { Runtime, type LogLevel } from '@temporalio/worker';

/** node-llama-cpp's log levels (its `LlamaLogLevel` values), from none to most. */
type LlamaLevel = 'disabled' | 'fatal' | 'error' | 'warn' | 'info' | 'log' | 'debug';

const RANK: Record<LogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/**
 * How a line of llama.cpp is logged. Its warnings and notes are about the model file's insides (a
 * token's type, a tensor's layout), which a user of the model cannot act on: they are DEBUG, so the
 * default level (WARN) shows only its errors.
 */
function levelOf(level: LlamaLevel): LogLevel {
  if (level === 'fatal' || level === 'error') return 'ERROR';
  return level === 'debug' ? 'TRACE' : 'DEBUG';
}

/**
 * The `logLevel` and `logger` options of node-llama-cpp's `getLlama` that send its lines through our
 * log at `level` (`TOOLKIT_AGENT_LOG_LEVEL`): the Temporal runtime's logger when one is installed
 * (a worker's), else one plain line on standard error (`DEBUG node-llama-cpp: …`), never coloured.
 */
export function llamaLogOptions(level: LogLevel): {
  logLevel: LlamaLevel;
  logger: (level: LlamaLevel, message: string) => void;
} {
  return {
    logLevel: level === 'TRACE' ? 'debug' : level === 'DEBUG' ? 'log' : 'error',
    logger: (llamaLevel, message) => {
      const ours = levelOf(llamaLevel);
      if (RANK[ours] < RANK[level]) return;
      const text = `node-llama-cpp: ${stripVTControlCharacters(message).trim()}`;
      const logger = Runtime._instance?.logger;
      if (logger) logger.log(ours, text);
      else process.stderr.write(`${ours} ${text}\n`);
    },
  };
}
