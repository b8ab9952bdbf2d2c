/**
 * The Node.js versions toolkit-agent runs on: what its dependencies declare (undici needs 22.19,
 * read and mute-stream ^22.22.2 || ^24.15.0 || >=26) and `node:sqlite` without a flag (22.13).
 * Checked first by every entry point (node-version-check.ts), so an older Node stops with one line
 * naming both versions instead of a crash inside a dependency. Keep in step with `engines` in
 * package.json (a unit test compares them).
 */
export const SUPPORTED_NODE = '^22.22.2 || ^24.15.0 || >=26.0.0';

/** Why `version` (e.g. `22.12.0`) cannot run toolkit-agent, or undefined when it can. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  const atLeast = (m: number, p: number) => minor > m || (minor === m && patch >= p);
  const ok = (major === 22 && atLeast(22, 2)) || (major === 24 && atLeast(15, 0)) || major >= 26;
  return ok
    ? undefined
    : `toolkit-agent needs Node.js ${SUPPORTED_NODE}; this is Node.js ${version.replace(/^v/, '')}. Install Node.js 24 (for example \`nvm install 24\`), or give this project its own: \`npm install --save-dev node@24\`, then run through npm (\`npx toolkit-agent ...\`, \`npm start\`), which puts that Node first on PATH.`;
}

/** The error an unsupported Node.js gets: one line, no stack (nothing of ours is at fault). */
export class UnsupportedNodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedNodeError';
    this.stack = `${this.name}: ${message}`;
  }
}
