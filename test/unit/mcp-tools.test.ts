import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { toToolOutput } from '../../src/mcp/call-result.ts';
import { McpToolError } from '../../src/mcp/tool-error.ts';
import { validateMcpServers } from '../../src/mcp/options.ts';
import { exposedToolNames, MAX_TOOL_NAME_CHARS } from '../../src/mcp/tool-names.ts';

const none = () => false;

describe('MCP tool names', () => {
  it('prefixes the server and replaces characters providers refuse', () => {
    const names = exposedToolNames(
      [
        { server: 'files', tool: 'read' },
        { server: 'files', tool: 'list.dir/all' },
      ],
      none,
    );
    expect([...names.keys()].sort()).toEqual(['files_list_dir_all', 'files_read']);
    expect(names.get('files_read')).toEqual({ server: 'files', tool: 'read' });
  });

  it('resolves collisions the same way whatever the listing order, within 64 characters', () => {
    const refs = [
      { server: 'files', tool: 'a.b' },
      { server: 'files', tool: 'a_b' },
      { server: 'files', tool: 'x'.repeat(80) },
      { server: 'files', tool: 'taken' },
    ];
    const taken = (name: string) => name === 'files_taken';
    const forward = exposedToolNames(refs, taken);
    const backward = exposedToolNames([...refs].reverse(), taken);
    expect([...forward].sort()).toEqual([...backward].sort());
    const names = [...forward.keys()];
    expect(new Set(names).size).toBe(4);
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_CHARS);
      expect(name).toMatch(/^[a-zA-Z0-9_-]+$/);
    }
    expect(names).not.toContain('files_a_b');
    expect(names).not.toContain('files_taken');
    expect(names.filter((name) => /^files_a_b_[0-9a-f]{6}$/.test(name))).toHaveLength(2);
  });
});

describe('MCP answers', () => {
  it('keeps text, describes images and resources, and puts structuredContent in metadata', () => {
    const output = toToolOutput('demo', 'look', {
      content: [
        { type: 'text', text: 'Here it is.' },
        { type: 'image', data: Buffer.from('0123456789').toString('base64'), mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'alpha' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.from('xyz').toString('base64') } },
        { type: 'resource_link', uri: 'file:///c', name: 'c', description: 'the c file' },
      ],
      structuredContent: { temperature: 21 },
    });
    expect(output.text).toBe(
      [
        'Here it is.',
        '[image: image/png, 10 bytes]',
        '[resource: file:///a.txt, text/plain]\nalpha',
        '[resource: file:///b.bin, 3 bytes]',
        '[resource link: c <file:///c>: the c file]',
      ].join('\n'),
    );
    expect(output.metadata).toEqual({
      mcp_server: 'demo',
      mcp_tool: 'look',
      structuredContent: { temperature: 21 },
    });
  });

  it('turns isError into an McpToolError with the server’s text', () => {
    expect(() =>
      toToolOutput('demo', 'look', { content: [{ type: 'text', text: 'disk full' }], isError: true }),
    ).toThrow(new McpToolError('demo', 'look', 'disk full'));
  });
});

describe('mcpServers validation', () => {
  it('refuses entries that could never connect, naming the agent and server', () => {
    expect(() => validateMcpServers('a', { files: { command: '' } })).toThrow(ConfigurationError);
    expect(() => validateMcpServers('a', { my_files: { command: 'x' } })).toThrow(/without "_"/);
    expect(() => validateMcpServers('a', { web: { url: 'ftp://x' } })).toThrow(/must be http\(s\)/);
    expect(() => validateMcpServers('a', { both: { url: 'http://x', command: 'y' } })).toThrow(/not both/);
    expect(() =>
      validateMcpServers('a', {
        files: { command: 'node', args: ['s.js'] },
        web: { url: 'http://127.0.0.1/mcp' },
      }),
    ).not.toThrow();
  });
});
