import { describe, expect, it } from 'vitest';
import { mapAllowedTools, splitAllowedTools } from '../../src/skills/allowed-tools.ts';

describe('allowed-tools', () => {
  it('splits on spaces and commas but keeps a scoped entry with spaces whole', () => {
    expect(splitAllowedTools('Read, Grep  Bash(git log:*) Bash(npm run test:*)')).toEqual([
      'Read',
      'Grep',
      'Bash(git log:*)',
      'Bash(npm run test:*)',
    ]);
  });

  it('maps the Agent Skills names onto the built-ins, keeps ours, and reports the rest', () => {
    expect(
      mapAllowedTools(['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash(git:*)', 'WebFetch', 'WebSearch'])
        .tools,
    ).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'glob_files',
      'grep_files',
      'bash',
      'open_url',
      'web_search',
    ]);
    expect(
      mapAllowedTools(['run_code', 'Bash', 'bash', 'Task', 'mcp__github__create_issue', 'read']),
    ).toEqual({
      tools: ['run_code', 'bash'],
      unknown: ['Task', 'mcp__github__create_issue', 'read'],
    });
  });
});
