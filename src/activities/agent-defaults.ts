import { DEFAULT_LONG_RETRY_AFTER_MS } from '../rate-limits/types.ts';
import type { RunTimeouts } from '../common/index.ts';

/** The defaults the worker applies to an agent definition's unset options. */
export const DEFAULT_MAX_ITERATIONS = 4;
/** The limit when skills are active and no limit was set. */
export const SKILL_MAX_ITERATIONS = 8;
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 20_000;
export const DEFAULT_TIMEOUTS: RunTimeouts = {
  modelStartToCloseMs: 10 * 60_000,
  modelHeartbeatMs: 30_000,
  modelMaxAttempts: 6,
  toolStartToCloseMs: 5 * 60_000,
  toolHeartbeatMs: 30_000,
  toolMaxAttempts: 3,
  storeStartToCloseMs: 10_000,
  storeMaxAttempts: 10,
  longRetryAfterMs: DEFAULT_LONG_RETRY_AFTER_MS,
  fastToolStartToCloseMs: 2_000,
};
