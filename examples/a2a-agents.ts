/**
 * Agents of two processes talking A2A: examples/a2a/weather-agent.ts serves a `weather` agent over
 * A2A (`serveA2a`); this process's `planner` agent has it as a sub-agent by URL, the tool
 * `agent_weather`, whose call is one durable A2A task. Any A2A client (of any vendor's SDK) could
 * call the weather agent the same way.
 *
 *   npm run build && node examples/a2a-agents.ts
 *
 * A2A needs its SDK next to toolkit-agent: `npm install @a2a-js/sdk`. The model: Anthropic when
 * ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise ScriptedModels (what CI
 * runs). Everything else is real: both processes, HTTP, the A2A protocol, the embedded Temporal
 * servers, the workflows and activities.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, InMemoryCredentialStore, type LanguageModel } from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const token = randomUUID();
const weather = spawn(process.execPath, [fileURLToPath(new URL('./a2a/weather-agent.ts', import.meta.url))], {
  env: { ...process.env, A2A_TOKEN: token },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  createInterface({ input: weather.stdout }).on('line', (line) => {
    if (line.startsWith('URL ')) resolve(line.slice('URL '.length));
  });
  weather.once('exit', (code) => reject(new Error(`The weather agent's process ended (${code}).`)));
});
console.log(`The weather agent serves A2A at ${url}`);

const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel([
        { toolCalls: [{ name: 'agent_weather', args: { task: 'Lisbon' } }] },
        (request) => ({ text: `Pack light: ${String(request.messages.at(-1)?.content)}` }),
      ]);

// The token the weather agent wants, in the credential store: it is read inside the tool's activity only.
const credentialStore = new InMemoryCredentialStore();
await credentialStore.put({ name: 'weather-a2a', type: 'bearer', token });
const planner = new Agent({
  llm,
  credentialStore,
  systemPrompt: 'You help people pack for a trip. Ask the weather agent about the destination first.',
  subAgents: {
    weather: { a2a: { url, credentialKey: 'weather-a2a' }, description: 'Tells the weather of a city.' },
  },
});

try {
  for await (const event of planner.stream('I am going to Lisbon tomorrow. What should I pack?')) {
    // The sub-agent's events come woven in, tagged with its run (`sub_run`).
    const who = event.payload.sub_run ? '  (weather) ' : '';
    if (event.type === 'tool_completed') {
      console.log(`${who}${String(event.payload.tool)} → ${String(event.payload.output)}`);
    }
    if (event.type === 'run_completed' && !who) console.log(`\nAnswer: ${String(event.payload.output)}`);
  }
} finally {
  await planner.close();
  weather.kill('SIGTERM');
}
