import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, unsupportedNode } from '../../src/node-version.ts';

describe('the Node.js versions toolkit-agent supports', () => {
  it('are the ones package.json declares', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    expect(manifest.engines.node).toBe(SUPPORTED_NODE);
  });

  it('refuses the versions whose dependencies crash (undici on 22.12, read before 22.22.2), naming both versions', () => {
    expect(unsupportedNode('22.12.0')).toBe(
      `toolkit-agent needs Node.js ${SUPPORTED_NODE}; this is Node.js 22.12.0. Install Node.js 24 (for example \`nvm install 24\`), or give this project its own: \`npm install --save-dev node@24\`, then run through npm (\`npx toolkit-agent ...\`, \`npm start\`), which puts that Node first on PATH.`,
    );
    for (const version of ['v20.18.0', '22.19.0', '22.22.1', '23.11.0', '24.14.9', '25.2.0']) {
      expect(unsupportedNode(version), version).toMatch(/needs Node\.js/);
    }
  });

  it('accepts the supported ones, this Node.js among them', () => {
    for (const version of [
      '22.22.2',
      '22.23.0',
      '24.15.0',
      '24.21.0',
      '26.0.0',
      '27.1.3',
      process.versions.node,
    ]) {
      expect(unsupportedNode(version), version).toBeUndefined();
    }
  });
});
