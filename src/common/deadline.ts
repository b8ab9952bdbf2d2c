/**
 * When a turn passes its deadline (epoch ms): its own (`timeoutMs` from its start), capped by its
 * parent's (a sub-agent run stops when its parent would); undefined when neither has one.
 */
export function turnDeadlineAt(
  startedAt: number,
  timeoutMs: number | undefined,
  parentDeadlineAt: number | undefined,
): number | undefined {
  return earliestDeadline(timeoutMs === undefined ? undefined : startedAt + timeoutMs, parentDeadlineAt);
}

/** The earlier of two deadlines (epoch ms), either of which may be unset. */
export function earliestDeadline(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
