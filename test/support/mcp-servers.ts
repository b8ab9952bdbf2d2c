import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/embedded/free-port.ts';
import { json, startRecordingServer, type RecordingServer } from './http-server.ts';

const require = createRequire(import.meta.url);

/** The entry point of `@modelcontextprotocol/server-everything`, the MCP project's reference server. */
export const EVERYTHING_SERVER = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

/** Our fault-staging stdio server (see the file). */
export const FAULT_SERVER = join(dirname(fileURLToPath(import.meta.url)), 'mcp-fault-server.ts');

/** The pids of live processes whose command line contains `marker`. */
export function pidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

export interface EverythingHttp {
  url: string;
  /** Everything the server wrote to stdout (it logs each session it starts). */
  output(): string;
  stop(): Promise<void>;
}

/** `server-everything streamableHttp` as a real child process on a free port. */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start:\n${output}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}):\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

/**
 * A gate in front of an MCP server that lets through only requests carrying `Bearer <token>` (401
 * otherwise), forwarding them and streaming the answers back, like an authenticating proxy. It
 * records every request, so a test sees what the server was sent.
 */
export async function startBearerGate(
  target: string,
  token: string | ((token: string) => boolean),
): Promise<RecordingServer> {
  const accepts = typeof token === 'string' ? (given: string) => given === token : token;
  return startRecordingServer(async (request, response) => {
    if (!accepts(String(request.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      json(response, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer' });
      return;
    }
    const forwarded = new Headers();
    for (const name of [
      'content-type',
      'accept',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
    ]) {
      const value = request.headers[name];
      if (typeof value === 'string') forwarded.set(name, value);
    }
    const upstream = await fetch(target, {
      method: request.method,
      headers: forwarded,
      ...(request.method === 'POST' ? { body: request.body } : {}),
    });
    const headers: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (['content-type', 'mcp-session-id', 'mcp-protocol-version', 'cache-control'].includes(name))
        headers[name] = value;
    });
    response.writeHead(upstream.status, headers);
    if (!upstream.body) return void response.end();
    const body = Readable.fromWeb(upstream.body);
    response.on('close', () => body.destroy());
    body.pipe(response);
  });
}
