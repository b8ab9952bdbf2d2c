import { createHash } from 'node:crypto';

/** The longest tool name model providers accept. */
export const MAX_TOOL_NAME_CHARS = 64;
const HASH_CHARS = 6;

/** One MCP tool as its server names it. */
export interface McpToolRef {
  server: string;
  tool: string;
}

/**
 * The names the model sees for MCP tools: `<server>_<tool>`, with characters providers refuse
 * replaced by `_`, at most 64 characters. A name that would be shared (by two MCP tools, or with a name
 * `isTaken` claims) or that had to be shortened gets the first 57 characters and `_` plus 6 hex characters of
 * a hash of `server/tool`. The result depends only on the set of tools, never on listing order, so
 * every worker and every run names a tool the same way.
 */
export function exposedToolNames(
  refs: readonly McpToolRef[],
  isTaken: (name: string) => boolean,
): Map<string, McpToolRef> {
  const byCandidate = new Map<string, McpToolRef[]>();
  for (const ref of refs) {
    const candidate = `${ref.server}_${ref.tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
    byCandidate.set(candidate, [...(byCandidate.get(candidate) ?? []), ref]);
  }
  const names = new Map<string, McpToolRef>();
  const sorted = [...byCandidate.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [candidate, group] of sorted) {
    const clean = group.length === 1 && candidate.length <= MAX_TOOL_NAME_CHARS && !isTaken(candidate);
    if (clean) {
      names.set(candidate, group[0]!);
      continue;
    }
    for (const ref of group) {
      const hash = createHash('sha256')
        .update(`${ref.server}/${ref.tool}`)
        .digest('hex')
        .slice(0, HASH_CHARS);
      names.set(`${candidate.slice(0, MAX_TOOL_NAME_CHARS - HASH_CHARS - 1)}_${hash}`, ref);
    }
  }
  return names;
}
