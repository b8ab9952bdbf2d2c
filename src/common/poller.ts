/** Sources a poller reads (sources without push). */
export type PollSourceName = 'gmail' | 'linear';

/** One new item a poll found: what identifies it, and what a prompt may say of it. */
export interface PolledItem {
  /** Unique per new item (a Gmail message id; a Linear issue id with the update's time). */
  id: string;
  title: string;
  text: string;
  url?: string;
  /** More fields for prompt templates (`from`, `identifier`, ...). */
  fields?: Record<string, string>;
}

export interface PollResult {
  items: PolledItem[];
  /** Where the next poll starts (Gmail's historyId, Linear's last updatedAt). */
  cursor: string;
}

/** A long-lived poller workflow's input (carried across continue-as-new with its cursor). */
export interface PollerInput {
  pollerId: string;
  source: PollSourceName;
  /** The credential record the source is read with. */
  credentialKey: string;
  /** The agent whose worker and credential store serve the polls and the runs. */
  agent: string;
  everyMs: number;
  tenant?: string;
  /** Start a run of `agent` per new item; `prompt` is a template (`{{title}}`, `{{text}}`, `{{url}}`, `{{id}}`, fields). */
  run?: { prompt?: string };
  /** Send each new item into this chat session (a template too) instead. */
  session?: { id: string; prompt?: string };
  /** Where the next poll starts; undefined: from now. */
  cursor?: string;
}

/** What `AgentPollers.list` shows of a running poller. */
export interface PollerState {
  cursor: string | undefined;
  polls: number;
  started: number;
  lastError: string | undefined;
}

/** The query a poller answers with its {@link PollerState}. */
export const POLLER_STATE_QUERY = 'toolkit.pollerState';

export const POLLER_WORKFLOW_PREFIX = 'poller-';
export const DEFAULT_POLL_PROMPT = 'New {{source}} item: {{title}}\n\n{{text}}\n\n{{url}}';

/** Fills `{{name}}` placeholders from the item (unknown names become empty). */
export function fillTemplate(template: string, item: PolledItem, source: string): string {
  const values: Record<string, string> = {
    source,
    id: item.id,
    title: item.title,
    text: item.text,
    url: item.url ?? '',
    ...item.fields,
  };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => values[name] ?? '').trim();
}
