import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { CustomAPITool } from '../../src/tools/http/custom-api.ts';
import { ToolSearchTool } from '../../src/tools/tool-search.ts';
import { toolContext } from '../support/tool-context.ts';

function tool(name: string, description: string, params: Record<string, string> = {}): BaseConnectorTool {
  const shape = Object.fromEntries(
    Object.entries(params).map(([key, text]) => [key, z.string().describe(text)]),
  );
  return new (class extends BaseConnectorTool {
    readonly name = name;
    readonly description = description;
    readonly parameters = z.object(shape);
    async run(): Promise<ToolOutput> {
      return { text: '', metadata: {} };
    }
  })();
}

const tools = [
  tool('invoice_tool', 'Create and send customer invoices in the billing system', {
    customer_id: 'the customer',
  }),
  tool('weather', 'Current weather and forecast for a city', { city: 'city name' }),
  tool('ticket_lookup', 'Look up support tickets', { ticket_id: 'Zendesk ticket number' }),
  new CustomAPITool(),
];
const search = new ToolSearchTool(tools.map((t) => t.schema()));

describe('tool_search', () => {
  it('finds a custom connector by a phrase from its description, and loads it', async () => {
    const output = await search.run(toolContext(), { query: 'send an invoice to a customer' });
    expect(output.loadTools?.[0]).toBe('invoice_tool');
    expect(output.text).toContain('- invoice_tool: Create and send customer invoices in the billing system');
  });

  it('tolerates typos and matches parameter descriptions', async () => {
    expect((await search.run(toolContext(), { query: 'wheather forcast' })).loadTools?.[0]).toBe('weather');
    expect((await search.run(toolContext(), { query: 'zendesk' })).loadTools).toEqual(['ticket_lookup']);
    expect((await search.run(toolContext(), { query: 'HTTP API' })).loadTools?.[0]).toBe('custom_api');
  });

  it('says so when nothing matches, and honours the limit', async () => {
    const none = await search.run(toolContext(), { query: 'quantum teleportation' });
    expect(none.text).toMatch(/No tool matches "quantum teleportation" \(4 tools available\)/);
    expect(none.loadTools).toBeUndefined();
    expect(
      (await search.run(toolContext(), { query: 'customer city ticket', limit: 2 })).loadTools,
    ).toHaveLength(2);
  });
});
