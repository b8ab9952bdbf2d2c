import { BUILTIN_TOOL_NAMES } from './tool-bundles.ts';

/**
 * The Agent Skills / Claude Code tool names a SKILL.md's `allowed-tools` uses, mapped onto our
 * built-in tools. `Bash(git:*)` and other scoped forms map by the name before the parenthesis.
 */
export const ALLOWED_TOOL_NAMES: Readonly<Record<string, string>> = {
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  Glob: 'glob_files',
  Grep: 'grep_files',
  Bash: 'bash',
  WebFetch: 'open_url',
  WebSearch: 'web_search',
};

const BUILTINS = new Set<string>(BUILTIN_TOOL_NAMES);

/**
 * Splits an `allowed-tools` value (space- or comma-separated, or a YAML list) into entries, keeping
 * `Bash(git log:*)` whole even though it holds spaces.
 */
export function splitAllowedTools(value: string): string[] {
  const entries: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of value) {
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && /[\s,]/.test(char)) {
      if (current) entries.push(current);
      current = '';
    } else current += char;
  }
  if (current) entries.push(current);
  return entries;
}

/**
 * Our tool names for `allowed-tools` entries: Agent Skills names through {@link ALLOWED_TOOL_NAMES},
 * our own built-in names as they are. Anything else is returned in `unknown`, never guessed.
 */
export function mapAllowedTools(entries: readonly string[]): { tools: string[]; unknown: string[] } {
  const tools = new Set<string>();
  const unknown: string[] = [];
  for (const entry of entries) {
    const name = entry.replace(/\(.*$/s, '').trim();
    const mapped = ALLOWED_TOOL_NAMES[name] ?? (BUILTINS.has(name) ? name : undefined);
    if (mapped) tools.add(mapped);
    else unknown.push(entry);
  }
  return { tools: [...tools], unknown };
}
