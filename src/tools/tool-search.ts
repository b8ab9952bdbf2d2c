import MiniSearch from 'minisearch';
import { z } from 'zod';
import type { ToolSchema } from '../common/messages.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from './connector-base.ts';

export const TOOL_SEARCH_NAME = 'tool_search';

interface Entry {
  id: string;
  name: string;
  description: string;
  parameters: string;
}

const parameters = z.object({
  query: z.string().describe('What you want to do, e.g. "create an invoice" or "search mail"'),
  limit: z.number().int().min(1).max(20).optional().describe('Most tools to return (default 5)'),
});

/**
 * `tool_search`: finds tools by what they do (name, description, parameter names and descriptions),
 * with typo-tolerant ranked search. An agent with `toolSearch` enabled shows the model only this tool
 * (and any it always loads) at first; the tools a search returns are given to the model from the next
 * step on, so many tools cost few schemas up front.
 */
export class ToolSearchTool extends BaseConnectorTool<typeof parameters> {
  readonly name = TOOL_SEARCH_NAME;
  readonly description =
    'Find the tools available for a task. Describe what you want to do; the matching tools become ' +
    'callable from your next step.';
  readonly parameters = parameters;
  readonly #schemas: ToolSchema[];
  readonly #more: ((context: ToolContext) => Promise<ToolSchema[]>) | undefined;
  /** The index, rebuilt only when the tools found by `more` change. */
  #index: { key: string; index: MiniSearch<Entry>; count: number } | undefined;

  /**
   * @param schemas the tools to index.
   * @param more tools known only inside the activity (an agent's MCP tools), indexed with them.
   */
  constructor(schemas: ToolSchema[], more?: (context: ToolContext) => Promise<ToolSchema[]>) {
    super();
    this.#schemas = schemas;
    this.#more = more;
  }

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const { query, limit = 5 } = args;
    const { index, count } = await this.#indexFor(context);
    const hits = index.search(query).slice(0, limit);
    if (hits.length === 0) {
      return {
        text: `No tool matches "${query}" (${count} tools available). Try other words.`,
        metadata: { matches: [] },
      };
    }
    const names = hits.map((hit) => String(hit.name));
    const lines = hits.map((hit) => `- ${String(hit.name)}: ${String(hit.description)}`);
    return {
      text: `Tools for "${query}" (callable from your next step):\n${lines.join('\n')}`,
      metadata: { matches: names },
      loadTools: names,
    };
  }

  async #indexFor(context: ToolContext): Promise<{ index: MiniSearch<Entry>; count: number }> {
    const more = this.#more ? await this.#more(context) : [];
    const key = more.map((schema) => schema.function.name).join('\n');
    if (this.#index?.key !== key) {
      const index = new MiniSearch<Entry>({
        fields: ['name', 'description', 'parameters'],
        storeFields: ['name', 'description'],
        searchOptions: { boost: { name: 3, description: 2 }, fuzzy: 0.2, prefix: true, combineWith: 'OR' },
        tokenize: (text) => text.split(/[\s_\-.,;:!?()[\]{}"'/]+/).filter(Boolean),
      });
      const all = [...this.#schemas, ...more.filter((schema) => !this.#schemas.includes(schema))];
      index.addAll(all.map((schema) => toEntry(schema)));
      this.#index = { key, index, count: all.length };
    }
    return this.#index;
  }
}

function toEntry(schema: ToolSchema): Entry {
  const properties = (schema.function.parameters.properties ?? {}) as Record<
    string,
    { description?: string }
  >;
  const parameterText = Object.entries(properties)
    .map(([name, property]) => `${name} ${property.description ?? ''}`)
    .join(' ');
  return {
    id: schema.function.name,
    name: schema.function.name,
    description: schema.function.description,
    parameters: parameterText,
  };
}
