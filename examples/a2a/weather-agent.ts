/**
 * The other process of examples/a2a-agents.ts: a `weather` agent served over A2A with `serveA2a`
 * (its own embedded Temporal server and worker), for clients that send the bearer token A2A_TOKEN.
 * Prints `URL <the agent's URL>` once it serves, and stops on SIGTERM.
 */
import { serveA2a } from 'toolkit-agent/a2a';
import { ScriptedModel } from 'toolkit-agent/testing';

const llm = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel([
        (request) => ({ text: `${String(request.messages.at(-1)?.content)}: sunny, 24 °C.` }),
      ]);

const serving = await serveA2a({
  agents: {
    weather: {
      llm,
      systemPrompt: 'You tell the weather of a city, in one sentence.',
      autoProjectSkills: false,
    },
  },
  transport: { port: 0, bearerToken: process.env.A2A_TOKEN! },
});
console.log(`URL ${serving.agentUrls.weather!}`);
process.once('SIGTERM', () => void serving.close().then(() => process.exit(0)));
