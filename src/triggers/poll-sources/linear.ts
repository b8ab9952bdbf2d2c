import { z } from 'zod';
import type { PolledItem, PollResult } from '../../common/poller.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../tools/connector-base.ts';
import { graphql } from '../../tools/linear/graphql.ts';

const UPDATED_SINCE = `query UpdatedIssues($since: DateTimeOrDuration!, $after: String) {
  issues(filter: { updatedAt: { gt: $since } }, first: 50, after: $after, orderBy: updatedAt) {
    nodes { id identifier title description url updatedAt }
    pageInfo { hasNextPage endCursor }
  }
}`;

interface IssueNode {
  id: string;
  identifier: string;
  title: string;
  description?: string | null;
  url: string;
  updatedAt: string;
}

const linearPollSourceParameters = z.object({ cursor: z.string().optional() });

/**
 * Linear issues created or updated since a time (GraphQL `issues` filtered by `updatedAt`): each
 * update of an issue is a new item (`<id>@<updatedAt>`). The first poll starts from now.
 */
export class LinearPollSource extends BaseConnectorTool<typeof linearPollSourceParameters> {
  readonly name = 'linear_poller';
  readonly description = 'Polls Linear for updated issues (used by pollers, not offered to models)';
  readonly parameters = linearPollSourceParameters;
  protected override readonly defaultCredentialKey = 'issue_tracker';

  async run(context: ToolContext, args: z.infer<typeof linearPollSourceParameters>): Promise<ToolOutput> {
    const result = await this.poll(context, args.cursor);
    return { text: `${result.items.length} new`, metadata: { ...result } };
  }

  async poll(context: ToolContext, cursor: string | undefined): Promise<PollResult> {
    if (!cursor) return { items: [], cursor: new Date().toISOString() };
    const record = await this.getCredential(context);
    const nodes: IssueNode[] = [];
    let after: string | null = null;
    do {
      const data: {
        issues: { nodes: IssueNode[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      } = await graphql(record, context, UPDATED_SINCE, { since: cursor, after });
      nodes.push(...data.issues.nodes);
      after = data.issues.pageInfo.hasNextPage ? data.issues.pageInfo.endCursor : null;
    } while (after);
    const items: PolledItem[] = nodes
      .filter((node) => node.updatedAt > cursor)
      .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))
      .map((node) => ({
        id: `${node.id}@${node.updatedAt}`,
        title: `${node.identifier}: ${node.title}`,
        text: node.description ?? '',
        url: node.url,
        fields: { identifier: node.identifier, issueId: node.id },
      }));
    return { items, cursor: items.at(-1)?.id.split('@')[1] ?? cursor };
  }
}
