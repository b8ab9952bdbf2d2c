/** What the Temporal UI shows for a run or chat session before anyone opens it. */
export interface SummaryFields {
  agent: string;
  tenant?: string;
  kind: 'run' | 'deep run' | 'chat' | 'sub-agent run';
  /** A sub-agent run's parent agent: the summary names it. */
  parent?: string;
  model?: string;
  /** Shown (first line only) when the caller allows it with `summaryIncludesPrompt`. */
  prompt?: string;
}

const MAX_PROMPT_LINE = 120;

/**
 * The static summary of a workflow: agent, tenant and kind, and the prompt's first line only when
 * `fields.prompt` is given. One line of Temporal markdown.
 *
 * @example runSummary({ agent: 'support', tenant: 'acme', kind: 'run' }) // 'support run · tenant acme'
 */
export function runSummary(fields: SummaryFields): string {
  const parts = [`${fields.agent} ${fields.kind}`];
  if (fields.parent !== undefined) parts.push(`for ${fields.parent}`);
  if (fields.tenant !== undefined) parts.push(`tenant ${fields.tenant}`);
  const line = fields.prompt?.trim().split('\n', 1)[0]?.trim();
  if (line) {
    parts.push(line.length > MAX_PROMPT_LINE ? `${line.slice(0, MAX_PROMPT_LINE - 1)}…` : line);
  }
  return parts.join(' · ');
}

/** The static details of a workflow: the same facts as a short markdown list, never the prompt. */
export function runDetails(fields: SummaryFields): string {
  const rows = [`**Agent:** ${fields.agent}`, `**Kind:** ${fields.kind}`];
  if (fields.parent !== undefined) rows.push(`**Parent agent:** ${fields.parent}`);
  if (fields.tenant !== undefined) rows.push(`**Tenant:** ${fields.tenant}`);
  if (fields.model !== undefined) rows.push(`**Model:** ${fields.model}`);
  return rows.join('\n');
}
