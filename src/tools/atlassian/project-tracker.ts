/**
 * The `toolkit-agent/tools/project_tracker` entry point.
 *
 * @module toolkit-agent/tools/project_tracker
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { z } from 'zod';
import { ToolInputError } from '../../errors.ts';
import { atlassianClient } from './client.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { collectPages } from '../../http/collect-pages.ts';

const parameters = z.object({
  action: z.enum(['search', 'create']),
  query: z
    .string()
    .optional()
    .describe('search: plain words (searched in summaries, descriptions, comments)'),
  jql: z.string().optional().describe('search: a JQL query, used as is'),
  project_key: z.string().optional().describe('search: limit to a project; create: the project (required)'),
  issue_type: z.string().optional().describe('create: issue type (default Task)'),
  summary: z.string().optional().describe('create: the summary (required)'),
  description: z.string().optional(),
  max_results: z.number().int().min(1).max(100).optional().describe('search: default 10'),
});

interface JiraIssue {
  id: string;
  key: string;
  fields: {
    summary?: string;
    status?: { name?: string };
    assignee?: { displayName?: string } | null;
    priority?: { name?: string } | null;
  };
}

const FIELDS = ['summary', 'status', 'assignee', 'priority'];

/**
 * `project_tracker` (Jira, docs/connectors.md): hosted (REST v3: `/search/jql` with `nextPageToken`,
 * descriptions in Atlassian Document Format, Basic email:token) and self-hosted (REST v2: `startAt`,
 * plain-text descriptions, Bearer personal access token), chosen by `metadata.edition` or the URL.
 */
export class ProjectTrackerTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'project_tracker';
  readonly description =
    'Search issues (plain words or JQL) or create an issue in the project tracker (Jira).';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'project_tracker';
  protected override readonly credentialTypes = ['api_key', 'bearer', 'basic'] as const;

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const { site, call } = atlassianClient(
      await this.getCredential(context),
      this.credentialKey,
      context,
      'Jira',
    );
    const version = site.cloud ? 3 : 2;
    if (args.action === 'search') {
      const jql = args.jql ?? buildJql(args.query, args.project_key);
      const max = args.max_results ?? 10;
      const issues: JiraIssue[] = [];
      if (site.cloud) {
        issues.push(
          ...(await collectPages<JiraIssue>(max, async (nextPageToken, wanted) => {
            const page = (await call('POST', '/rest/api/3/search/jql', {
              body: {
                jql,
                maxResults: Math.min(wanted, 100),
                fields: FIELDS,
                ...(nextPageToken ? { nextPageToken } : {}),
              },
            })) as { issues: JiraIssue[]; nextPageToken?: string; isLast?: boolean };
            return { items: page.issues, next: page.isLast === false ? page.nextPageToken : undefined };
          })),
        );
      } else {
        for (let startAt = 0; issues.length < max;) {
          const page = (await call('GET', '/rest/api/2/search', {
            query: { jql, startAt, maxResults: Math.min(max - issues.length, 100), fields: FIELDS.join(',') },
          })) as { issues: JiraIssue[]; total: number };
          issues.push(...page.issues);
          startAt += page.issues.length;
          if (page.issues.length === 0 || startAt >= page.total) break;
        }
      }
      const lines = issues.map(
        (i) =>
          `${i.key} [${i.fields.status?.name ?? '?'}${i.fields.priority?.name ? `, ${i.fields.priority.name}` : ''}] ${i.fields.summary ?? ''}${i.fields.assignee?.displayName ? ` (${i.fields.assignee.displayName})` : ''}`,
      );
      return {
        text: lines.length ? lines.join('\n') : `No issue matches: ${jql}`,
        metadata: { jql, issues },
      };
    }
    if (!args.project_key || !args.summary) throw new ToolInputError('create needs project_key and summary.');
    const description = args.description
      ? { description: site.cloud ? toAdf(args.description) : args.description }
      : {};
    const created = (await call('POST', `/rest/api/${version}/issue`, {
      body: {
        fields: {
          project: { key: args.project_key },
          issuetype: { name: args.issue_type ?? 'Task' },
          summary: args.summary,
          ...description,
        },
      },
    })) as { id: string; key: string };
    return {
      text: `Created ${created.key}: ${args.summary} ${new URL(`/browse/${created.key}`, site.base).toString()}`,
      metadata: created,
    };
  }
}

/** Plain words become a bounded JQL text search, newest first. */
function buildJql(query: string | undefined, project: string | undefined): string {
  if (!query?.trim() && !project) throw new ToolInputError('search needs a query, jql or project_key.');
  const clauses = [
    ...(project ? [`project = "${escapeJql(project)}"`] : []),
    ...(query?.trim() ? [`text ~ "${escapeJql(query.trim())}"`] : []),
  ];
  return `${clauses.join(' AND ')} ORDER BY updated DESC`;
}

function escapeJql(text: string): string {
  return text.replace(/[\\"]/g, (c) => `\\${c}`);
}

/** Paragraphs of plain text in Atlassian Document Format (REST v3 descriptions). */
function toAdf(text: string) {
  return {
    type: 'doc',
    version: 1,
    content: text
      .split(/\n\s*\n/)
      .filter((p) => p.trim())
      .map((paragraph) => ({ type: 'paragraph', content: [{ type: 'text', text: paragraph.trim() }] })),
  };
}
