import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import {
  buildSchema,
  getVariableValues,
  parse,
  validate,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { json, startRecordingServer, type RecordingServer } from '../http-server.ts';

/** Linear's published schema, from the shared API descriptions beside the repository. */
export const LINEAR_SCHEMA_PATH = new URL(
  '../../../../shared/api-schemas/linear/schema.graphql',
  import.meta.url,
);
/** CI has `shared/` beside the repository; elsewhere the Linear tests say so and skip. */
export const LINEAR_SCHEMA_AVAILABLE = existsSync(LINEAR_SCHEMA_PATH);
if (!LINEAR_SCHEMA_AVAILABLE) {
  console.warn(
    `Skipping the Linear tests: ${LINEAR_SCHEMA_PATH.pathname} (shared/ beside the repository) is missing.`,
  );
}

let schema: Promise<GraphQLSchema> | undefined;
export function linearSchema(): Promise<GraphQLSchema> {
  schema ??= readFile(LINEAR_SCHEMA_PATH, 'utf8').then((sdl) => buildSchema(sdl, { assumeValidSDL: true }));
  return schema;
}

/** Problems with a GraphQL request as Linear's schema sees them: document validity and variable types. */
export async function schemaErrors(query: string, variables: Record<string, unknown>): Promise<string[]> {
  const document = parse(query);
  const errors = validate(await linearSchema(), document).map((e) => e.message);
  if (errors.length) return errors;
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  );
  const coerced = getVariableValues(await linearSchema(), operation?.variableDefinitions ?? [], variables);
  return 'errors' in coerced && coerced.errors ? coerced.errors.map((e) => e.message) : [];
}

interface StoredIssue {
  id: string;
  identifier: string;
  title: string;
  description?: string;
  priority: number;
  teamId: string;
  url: string;
}

/**
 * A Linear stand-in at POST /graphql: refuses a request without Authorization (as Linear does),
 * refuses any document or variables that Linear's schema rejects, searches and creates issues,
 * and refuses a second create with the same id, like the real API.
 */
export async function startLinearServer(
  options: { loseFirstCreateAnswer?: boolean } = {},
): Promise<RecordingServer & { issues: StoredIssue[] }> {
  const issues: StoredIssue[] = [
    {
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      identifier: 'ENG-1',
      title: 'Login fails on Safari',
      description: 'Cookie issue',
      priority: 1,
      teamId: 'team-eng',
      url: 'https://linear.app/acme/issue/ENG-1',
    },
    {
      id: 'a1b2c3d4-0000-4000-8000-000000000002',
      identifier: 'ENG-2',
      title: 'Slow dashboard',
      description: 'Query plan regression after the login change',
      priority: 3,
      teamId: 'team-eng',
      url: 'https://linear.app/acme/issue/ENG-2',
    },
  ];
  let lose = options.loseFirstCreateAnswer ?? false;
  const server = await startRecordingServer(async (request, response) => {
    if (!request.headers.authorization) {
      return json(response, 400, {
        errors: [
          {
            message: 'Authentication required, not authenticated',
            extensions: { type: 'authentication error', code: 'AUTHENTICATION_ERROR' },
          },
        ],
      });
    }
    const { query, variables = {} } = JSON.parse(request.body) as {
      query: string;
      variables?: Record<string, unknown>;
    };
    const problems = await schemaErrors(query, variables);
    if (problems.length)
      return json(response, 400, {
        errors: problems.map((message) => ({
          message,
          extensions: { type: 'graphql error', code: 'GRAPHQL_VALIDATION_FAILED' },
        })),
      });
    if (query.includes('searchIssues')) {
      const term = String(variables.term).toLowerCase();
      const nodes = issues
        .filter((i) => `${i.title} ${i.description ?? ''}`.toLowerCase().includes(term))
        .slice(0, Number(variables.first ?? 50))
        .map((i) => ({
          id: i.id,
          identifier: i.identifier,
          title: i.title,
          url: i.url,
          priority: i.priority,
          state: { name: 'Todo' },
          assignee: null,
        }));
      return json(response, 200, {
        data: { searchIssues: { nodes, pageInfo: { hasNextPage: false, endCursor: null } } },
      });
    }
    if (query.includes('issueCreate')) {
      const input = variables.input as {
        id: string;
        teamId: string;
        title: string;
        description?: string;
        priority?: number;
      };
      if (issues.some((i) => i.id === input.id)) {
        return json(response, 200, {
          errors: [
            {
              message: 'Entity with this id already exists',
              extensions: { type: 'invalid input', code: 'INVALID_INPUT' },
            },
          ],
          data: null,
        });
      }
      const issue = {
        ...input,
        priority: input.priority ?? 0,
        identifier: `ENG-${issues.length + 1}`,
        url: `https://linear.app/acme/issue/ENG-${issues.length + 1}`,
      };
      issues.push(issue);
      if (lose) {
        // Created, but the answer is lost on the way back (a proxy in between gives up).
        lose = false;
        return json(response, 502, { error: 'upstream timed out' });
      }
      return json(response, 200, {
        data: {
          issueCreate: {
            success: true,
            issue: { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url },
          },
        },
      });
    }
    if (query.includes('IssueById')) {
      const issue = issues.find((i) => i.id === variables.id);
      return json(response, 200, {
        data: {
          issue: issue && { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url },
        },
      });
    }
    json(response, 400, { errors: [{ message: 'Unknown operation' }] });
  });
  return Object.assign(server, { issues });
}
