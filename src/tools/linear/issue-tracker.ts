/**
 * The `toolkit-agent/tools/issue_tracker` entry point.
 *
 * @module toolkit-agent/tools/issue_tracker
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolInputError, UpstreamError } from '../../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { LINEAR_DOCUMENTS } from './documents.ts';
import { graphql } from './graphql.ts';

const PRIORITY = ['none', 'urgent', 'high', 'normal', 'low'];

const parameters = z.object({
  action: z.enum(['search', 'create']),
  query: z.string().optional().describe('search: words to match in titles and descriptions'),
  team_id: z.string().optional().describe('create: the team id (required)'),
  title: z.string().optional().describe('create: the title (required)'),
  description: z.string().optional().describe('create: Markdown description'),
  priority: z.number().int().min(0).max(4).optional().describe('0 none, 1 urgent, 2 high, 3 normal, 4 low'),
  assignee_id: z.string().optional(),
  limit: z.number().int().min(1).max(50).optional().describe('search: results (default 10)'),
});

/**
 * `issue_tracker` (Linear's GraphQL API, docs/connectors.md): `search` over titles and descriptions, and
 * `create` with a client-chosen id, so a retried create can never make a second issue. Personal API
 * keys (`type: 'api_key'`) are sent as they are; OAuth and bearer tokens with "Bearer".
 */
export class IssueTrackerTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'issue_tracker';
  readonly description = 'Search issues or create an issue in the issue tracker (Linear).';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'issue_tracker';
  protected override readonly credentialTypes = ['api_key', 'bearer', 'oauth2'] as const;

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    if (args.action === 'search') {
      if (!args.query?.trim()) throw new ToolInputError('search needs a query.');
      const data = await graphql<{ searchIssues: { nodes: Issue[] } }>(
        record,
        context,
        LINEAR_DOCUMENTS.search,
        {
          term: args.query,
          first: args.limit ?? 10,
        },
      );
      const issues = data.searchIssues.nodes;
      const lines = issues.map(
        (i) =>
          `${i.identifier} [${i.state?.name ?? '?'}, ${PRIORITY[i.priority ?? 0]}] ${i.title} (id ${i.id}) ${i.url}`,
      );
      return {
        text: lines.length ? lines.join('\n') : `No issue matches "${args.query}".`,
        metadata: { issues },
      };
    }
    if (!args.team_id || !args.title) throw new ToolInputError('create needs team_id and title.');
    const id = issueId(context);
    const input = {
      id,
      teamId: args.team_id,
      title: args.title,
      ...(args.description ? { description: args.description } : {}),
      ...(args.priority !== undefined ? { priority: args.priority } : {}),
      ...(args.assignee_id ? { assigneeId: args.assignee_id } : {}),
    };
    let issue: Issue;
    try {
      const data = await graphql<{ issueCreate: { success: boolean; issue: Issue } }>(
        record,
        context,
        LINEAR_DOCUMENTS.create,
        { input },
      );
      issue = data.issueCreate.issue;
    } catch (error) {
      // A retry after a lost answer: the first attempt created it. Answer with that issue.
      if (!(error instanceof UpstreamError) || !/already exists|duplicate/i.test(error.message)) throw error;
      issue = (await graphql<{ issue: Issue }>(record, context, LINEAR_DOCUMENTS.byId, { id })).issue;
    }
    return { text: `Created ${issue.identifier}: ${issue.title} ${issue.url}`, metadata: { issue } };
  }
}

interface Issue {
  id: string;
  identifier: string;
  title: string;
  url: string;
  priority?: number;
  state?: { name: string };
  assignee?: { name: string } | null;
}

/** A UUID fixed by the workflow and the tool call: the same on every retry of one call. */
function issueId(context: ToolContext): string {
  const hex = createHash('sha256').update(`${context.workflowId}\n${context.callId}\nissue`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
