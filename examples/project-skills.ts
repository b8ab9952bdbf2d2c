/**
 * Project skills: a SKILL.md folder in your repository shapes how the agent works. The agent reads
 * the skills of its `projectRoot` (here examples/skills-project/.agents/skills/release-notes:
 * SKILL.md and references/format.md; `.claude/skills`, `.codex/skills`, `.github/skills` and
 * `.toolkit/skills` work too), lists them in its system prompt, and the model loads the one it needs
 * with `load_skill` and reads its files with `read_skill_file`. `result.metadata.used_skills` says
 * which it used. Check your skills with `npx toolkit-agent skills lint`.
 *
 *   npm run build && node examples/project-skills.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a
 * ScriptedModel (what CI runs) that loads the skill, reads its reference and answers. Everything
 * else is real: the SKILL.md discovery, the skill tools, the embedded Temporal server, the workflow.
 */
import { fileURLToPath } from 'node:url';
import { Agent, lintSkills, type LanguageModel } from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const projectRoot = fileURLToPath(new URL('./skills-project', import.meta.url));

const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel([
        (request) => {
          // The listing of the project's skills is in the system prompt.
          const system = String(request.messages.find((m) => m.role === 'system')?.content);
          if (!system.includes('release-notes')) throw new Error('The skill is not listed.');
          return { toolCalls: [{ name: 'load_skill', args: { id: 'release-notes' } }] };
        },
        {
          toolCalls: [
            { name: 'read_skill_file', args: { skill: 'release-notes', path: 'references/format.md' } },
          ],
        },
        {
          text: '## 2.4.0\n\nFaster exports and one fix.\n\n### New\n\n- Added CSV export of invoices.\n\n### Fixed\n\n- Fixed the 500 on month-end exports.',
        },
      ]);

// The skills lint as the CLI does it: nothing to report.
for (const d of await lintSkills([projectRoot]))
  console.log(`${d.file}:${d.line} ${d.severity} ${d.code}: ${d.message}`);

const agent = new Agent({
  llm,
  projectRoot, // default: the current directory
  skillActivation: 'model', // the model chooses from the listing; 'triggers' and 'both' also match trigger phrases
});

try {
  const result = await agent.run(
    'Write the release notes for 2.4.0. Merged: #812 add CSV export of invoices (Ada); #815 fix 500 on month-end exports (Lin).',
  );
  console.log(String(result.output));
  console.log(`\nused_skills: ${JSON.stringify(result.metadata.used_skills)}`);
  if (!result.metadata.used_skills.includes('release-notes')) {
    throw new Error('The run did not use the project skill release-notes.');
  }
} finally {
  await agent.close();
}
