import type { SearchAttributePair } from '@temporalio/common';
import { agentMemo, agentSearchAttributes } from './search-attributes.ts';
import { runDetails, runSummary, type SummaryFields } from './summary.ts';

/**
 * The start options that make a run or chat session readable in the Temporal UI and listable:
 * summary, details and memo (accepted by every cluster), and the search attributes apart, since a
 * cluster without them refuses the start (see `startWithSearchAttributes`).
 */
export function runStartOptions(fields: SummaryFields): {
  options: { staticSummary: string; staticDetails: string; memo: Record<string, string> };
  searchAttributes: { typedSearchAttributes: SearchAttributePair[] };
} {
  return {
    options: {
      staticSummary: runSummary(fields),
      staticDetails: runDetails(fields),
      memo: agentMemo(fields.agent, fields.tenant),
    },
    searchAttributes: { typedSearchAttributes: agentSearchAttributes(fields.agent, fields.tenant) },
  };
}
