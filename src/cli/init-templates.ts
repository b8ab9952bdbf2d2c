/** The files `toolkit-agent init` writes. */

export const CONFIG_TEMPLATE = `/**
 * toolkit-agent config: the agents that \`toolkit-agent run\`, \`chat\` and \`worker\` use, their
 * models and tools, the stores, and the Temporal cluster. Every key: node_modules/toolkit-agent/docs/cli.md.
 */
import { z } from 'zod';
import { defineConfig, defineTool, findLocalModel, LocalLlamaModel } from 'toolkit-agent';

/** Anthropic with ANTHROPIC_API_KEY, OpenAI with OPENAI_API_KEY, else the offline model (\`toolkit-agent model pull\`). */
async function model() {
  if (process.env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic');
    return anthropic('claude-sonnet-4-5');
  }
  if (process.env.OPENAI_API_KEY) {
    const { openai } = await import('@ai-sdk/openai');
    return openai('gpt-5-mini');
  }
  const modelPath = await findLocalModel();
  if (!modelPath) {
    throw new Error('No model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run \`toolkit-agent model pull\`.');
  }
  // A 270M model answers best when each turn calls a tool first, then answers.
  return new LocalLlamaModel({ modelPath, toolChoice: 'required' });
}

/** A tool that needs no account, so the agent works at once. Add connectors, MCP servers or your own. */
const clock = defineTool({
  name: 'clock',
  description: 'The current date and time (UTC)',
  parameters: z.object({}),
  run: () => ({ text: new Date().toISOString(), metadata: {} }),
});

const llm = await model();

export default defineConfig({
  agents: {
    assistant: {
      llm,
      systemPrompt:
        'You are a helpful assistant. Answer briefly. When your tools do not tell you the answer, say that you do not know.',
      tools: [clock],
      // Skills (.agents/skills): a skill joins a run whose prompt says one of its triggers; a provider's
      // model also loads them itself by their descriptions, which the small offline model cannot judge.
      autoUseSkills: true,
      skillActivation: llm instanceof LocalLlamaModel ? 'triggers' : 'both',
      // An HTTP API with a stored credential: \`import { CustomAPITool } from 'toolkit-agent'\`, add
      // \`new CustomAPITool()\` here, and store its credential:
      //   toolkit-agent creds set custom_api --meta base_url=https://api.example.com
    },
  },
  // Stores (defaults: ~/.toolkit-agent/credentials.json and ~/.toolkit-agent/memory.sqlite):
  // credentialStore: new FileCredentialStore({ path: '...' }),
  // memoryStore: new PostgresMemoryStore({ connectionString: process.env.DATABASE_URL! }),
  // Temporal: the local \`toolkit-agent server\` unless a profile or an address is given.
  temporal: {
    taskQueue: 'assistant',
    // profile: 'prod',                        // a temporal.toml profile (address, namespace, API key, TLS)
    // address: 'temporal.example.com:7233',
    // namespace: 'agents',
  },
  // OAuth clients for \`toolkit-agent auth google\` / \`auth slack\` (secrets from the environment):
  // oauth: { google: { client_id: '...apps.googleusercontent.com' } },
});
`;

export const SKILL_TEMPLATE = `---
name: example
description: Explains what this project is and how to use it, in three short sentences. Use when someone asks what the project is or how to start.
triggers:
  - what is this project
  - how do I start
---

# Example skill

Answer in at most three sentences: what the project does, the first command to try, and where to
read more. Edit this file or add skills beside it (\`toolkit-agent skills new <name>\`); check them with
\`toolkit-agent skills lint\`.
`;

/** A new skill's SKILL.md (\`toolkit-agent skills new <name>\`). */
export function skillTemplate(id: string): string {
  return `---
name: ${id}
description: TODO say what this skill does and when to use it (the model reads this to choose it).
triggers:
  - TODO a phrase that should select this skill
---

# ${id}

TODO the instructions the agent follows when this skill is selected.
`;
}
