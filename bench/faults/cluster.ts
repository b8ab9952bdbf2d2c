import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { EMBEDDED_DYNAMIC_CONFIG } from '../../src/embedded/dev-server.ts';
import { freePort } from '../../src/embedded/free-port.ts';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import { DEV_SERVER_SEARCH_ATTRIBUTE_ARGS } from '../../src/visibility/search-attributes.ts';
import { startNodeProcess, type NodeProcess } from '../../test/integration/processes.ts';

/**
 * A `temporal server start-dev` on a SQLite file and a fixed port, which the suite can SIGKILL and
 * start again on the same file: workers and clients reconnect to the same address.
 */
export class KillableServer {
  readonly address: string;
  readonly #args: string[];
  readonly #cli: string;
  #child: ChildProcess | undefined;

  private constructor(cli: string, port: number, dbFile: string) {
    this.#cli = cli;
    this.address = `127.0.0.1:${port}`;
    this.#args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)];
    this.#args.push('--log-level', 'error', '--db-filename', dbFile, ...DEV_SERVER_SEARCH_ATTRIBUTE_ARGS);
    for (const [key, value] of Object.entries(EMBEDDED_DYNAMIC_CONFIG))
      this.#args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }

  static async start(dbFile: string): Promise<KillableServer> {
    const cli = await findTemporalCli();
    if (!cli) throw new Error('The fault suite needs the temporal CLI: run `npm run temporal:ensure`.');
    const server = new KillableServer(cli.path, await freePort(), dbFile);
    await server.restart();
    return server;
  }

  /** Starts the server (again) and waits until it answers. */
  async restart(): Promise<void> {
    this.#child = spawn(this.#cli, this.#args, { stdio: 'ignore' });
    for (let i = 0; i < 600; i++) {
      try {
        const probe = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        await probe.workflowService.getSystemInfo({});
        await probe.close();
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error(`The dev server at ${this.address} did not answer within 60 s.`);
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }
}

/** The suite's worker processes: started, killed and restarted by the scenarios. */
export class WorkerPool {
  readonly #env: Record<string, string>;
  readonly all: NodeProcess[] = [];
  constructor(env: Record<string, string>) {
    this.#env = env;
  }

  async start(
    script = 'bench/faults/fault-worker.ts',
    extra: Record<string, string> = {},
  ): Promise<NodeProcess> {
    const worker = startNodeProcess(script, { ...this.#env, ...extra });
    this.all.push(worker);
    await worker.waitForLine(/^READY$/);
    return worker;
  }

  async kill(worker: NodeProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    worker.child.kill('SIGCONT');
    worker.child.kill(signal);
    await worker.exited;
  }

  async stopAll(): Promise<void> {
    for (const worker of this.all) await this.kill(worker);
  }
}

/** One logical write as the upstream saw it. */
export interface UpstreamRecord {
  run: string;
  n: number;
  cancelled: boolean;
}

/**
 * A local service that writes records: a repeated idempotency key is answered without writing again
 * (as Stripe-like APIs do), so `raw` counts requests and `byKey` the logical writes.
 */
export class Upstream {
  readonly raw: UpstreamRecord[] = [];
  readonly byKey = new Map<string, UpstreamRecord>();
  readonly #server: Server;
  readonly #written = new EventEmitter();
  url = '';

  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const record = JSON.parse(Buffer.concat(chunks).toString('utf8')) as UpstreamRecord;
        const key = String(request.headers['idempotency-key']);
        this.raw.push(record);
        if (!this.byKey.has(key)) this.byKey.set(key, record);
        this.#written.emit('write');
        response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async listen(): Promise<void> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Logical writes per run and record number: 1 is right, 0 missing, more duplicated. */
  writesOf(run: string, n: number): number {
    return [...this.byKey.values()].filter((r) => r.run === run && r.n === n).length;
  }

  /** Resolves once `count` logical writes were made. */
  writtenAtLeast(count: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.byKey.size < count) return;
        this.#written.off('write', check);
        resolve();
      };
      this.#written.on('write', check);
      check();
    });
  }

  close(): void {
    this.#server.closeAllConnections();
    this.#server.close();
  }
}
