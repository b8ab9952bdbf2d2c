/**
 * An MCP server as a tool source: the agent gets the tools of a stdio MCP server
 * (examples/mcp/inventory-server.ts, started by the worker as a child process) as
 * `inventory_<tool>`, with the server's own descriptions and JSON Schemas. The tools are listed and
 * called inside activities, so a run survives a worker restart; a server that cannot start is left
 * out with a `warning` event rather than failing the run.
 *
 *   npm run build && node examples/mcp-tools.ts
 *
 * MCP needs the SDK next to toolkit-agent: `npm install @modelcontextprotocol/sdk`. A Streamable HTTP
 * server is `{ url, credentialKey? }` instead of `{ command, args }`. The model: Anthropic when
 * ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a ScriptedModel (what CI
 * runs). Everything else is real: the MCP server process and protocol, the embedded Temporal server,
 * the workflow, the activities.
 */
import { fileURLToPath } from 'node:url';
import { Agent, type LanguageModel } from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel([
        { toolCalls: [{ name: 'inventory_list_products', args: {} }] },
        { toolCalls: [{ name: 'inventory_stock_level', args: { sku: 'red-mug' } }] },
        (request) => ({ text: `Sorry: ${String(request.messages.at(-1)?.content)}.` }),
      ]);

const agent = new Agent({
  llm,
  systemPrompt: 'You answer questions about the shop. Check the inventory before you answer.',
  maxIterations: 4,
  mcpServers: {
    // The worker starts this process and speaks MCP over its stdin/stdout.
    inventory: {
      command: process.execPath,
      args: [fileURLToPath(new URL('./mcp/inventory-server.ts', import.meta.url))],
    },
  },
});

let checkedStock = false;
try {
  for await (const event of agent.stream('Can I buy a red mug today?')) {
    if (event.type === 'tool_completed') {
      console.log(`${String(event.payload.tool)} → ${String(event.payload.output)}`);
      checkedStock ||= event.payload.tool === 'inventory_stock_level';
    } else if (event.type === 'warning') {
      console.log(`warning: ${event.message}`); // e.g. an MCP server that could not start
    } else if (event.type === 'run_completed') {
      console.log(`\nAnswer: ${String(event.payload.output)}`);
    }
  }
  if (!checkedStock)
    throw new Error('The agent answered without calling the MCP tool inventory_stock_level.');
} finally {
  await agent.close();
}
