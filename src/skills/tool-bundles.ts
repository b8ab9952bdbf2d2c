/**
 * The built-in tools that skills attach for a run (docs/skills.md), by skill id. A bundle's tools are given
 * to the model only in runs that select the skill, and reported in `metadata.used_skill_tools`.
 * Published at `toolkit-agent/skills/tool_bundles`.
 *
 * @module toolkit-agent/skills/tool_bundles
 */

import '../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line

/** The 13 built-in tools skills may attach. */
export const BUILTIN_TOOL_NAMES = [
  'read_file',
  'write_file',
  'edit_file',
  'glob_files',
  'grep_files',
  'workspace_files',
  'bash',
  'run_code',
  'web_search',
  'open_url',
  'playwright_browse',
  'plan_task',
  'verify_output',
] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export const TOOL_BUNDLES: Readonly<Record<string, readonly string[]>> = {
  'web-scraper-pro': [
    'web_search',
    'open_url',
    'playwright_browse',
    'bash',
    'read_file',
    'edit_file',
    'write_file',
    'glob_files',
    'grep_files',
  ],
  'full-stack-developer': [...BUILTIN_TOOL_NAMES],
  'portfolio-website-builder': ['write_file', 'edit_file', 'workspace_files', 'bash', 'run_code'],
  'security-engineer': ['bash', 'web_search', 'grep_files', 'read_file', 'run_code', 'verify_output'],
  'devops-automation': BUILTIN_TOOL_NAMES.filter((name) => name !== 'playwright_browse'),
};

/**
 * One error per tool a bundle names that is not in `known` (e.g. the built-in tools a worker has);
 * an empty list when every bundle is complete.
 */
export function validateToolBundles(known: Set<string>): string[] {
  const errors: string[] = [];
  for (const [skillId, tools] of Object.entries(TOOL_BUNDLES)) {
    for (const tool of tools) {
      if (!known.has(tool))
        errors.push(`Skill "${skillId}" attaches the tool "${tool}", which is not a known tool.`);
    }
  }
  return errors;
}

/** The tools a set of selected skills attaches: the bundles above, then each skill's own `tools`. */
export function toolsForSkills(skills: ReadonlyArray<{ id: string; tools?: readonly string[] }>): string[] {
  const names = new Set<string>();
  for (const skill of skills) {
    for (const tool of TOOL_BUNDLES[skill.id] ?? skill.tools ?? []) names.add(tool);
  }
  return [...names];
}
