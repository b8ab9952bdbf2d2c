import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { ConfigurationError } from '../errors.ts';
import { freePort, portIsFree } from './free-port.ts';
import { findTemporalCli, type FindTemporalCliOptions } from './temporal-cli.ts';
import {
  DEV_SERVER_SEARCH_ATTRIBUTE_ARGS,
  TOOLKIT_AGENT,
  TOOLKIT_TENANT,
} from '../visibility/search-attributes.ts';

export interface EmbeddedServerOptions {
  /** SQLite file that keeps workflows across restarts. Default: in memory. */
  dbFilename?: string;
  /** Namespace to create at launch (besides `default`). */
  namespace?: string;
  /** `--dynamic-config-value` pairs, e.g. `{ 'limit.blobSize.error': 2_000_000 }`, over the server's own settings (`EMBEDDED_DYNAMIC_CONFIG`). */
  dynamicConfig?: Record<string, unknown>;
  /** How to find or install the CLI. */
  cli?: FindTemporalCliOptions;
  /** The frontend port on 127.0.0.1. Default: a free port. */
  port?: number;
  /**
   * The port of the server's Prometheus `/metrics` endpoint on 127.0.0.1 (`--metrics-port`): its
   * `action` counter, by namespace, counts what Temporal Cloud bills. Default: a free port the CLI
   * picks and does not tell.
   */
  metricsPort?: number;
  /**
   * Serve the Temporal web UI too (on `port` + 1000 unless given). Default: headless. `codecEndpoint`
   * points the UI at a codec server (`--ui-codec-endpoint`), so it shows encrypted payloads decoded.
   */
  ui?: boolean | { port?: number; codecEndpoint?: string };
  /** How long to wait for the server to answer. Default: 60 s. */
  startTimeoutMs?: number;
  /**
   * Progress lines: what is fetched (the temporal CLI, once per user) and from where. Default: on
   * standard error, with pip's download bar when that is a terminal.
   */
  log?: (line: string) => void;
}

/**
 * The history service reads its task queues at most 20 times a second by default, which puts up to
 * 50 ms between a workflow task being scheduled and a worker receiving it: the largest cost of an
 * agent step on a local server. A dev server on one machine can afford to read them at once.
 * `matching.enableFairness` turns on Temporal's fair dispatch (it implies the priority-aware
 * matcher, `matching.useNewMatcher`): a backlog is shared among tenants by their fairness keys and
 * weights, and priority keys go first (docs/tenants.md). One partition per task queue: a
 * single-node server gains nothing from more, and a task queue's rate limit (`rateLimits`) is
 * exact only on one (with four, each dispatches a quarter of the rate, in bursts). Worker
 * versioning: worker deployments on, and a pinned run told when its deployment's target version
 * changed (`workflowInfo().targetWorkerDeploymentVersionChanged`), so chat sessions and pollers move to
 * a new version at their next continue-as-new (docs/production.md).
 */
export const EMBEDDED_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
  'matching.enableFairness': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableDeploymentVersions': true,
  'system.enableSendTargetVersionChanged': true,
};

/**
 * The shell guardian: runs the CLI in the background and ends it when its own standard input closes.
 * Standard input closes when we call {@link EmbeddedTemporalServer.close} and also when this process
 * dies in any way (even SIGKILL), so a dev server never outlives the process that started it. The
 * guardian ends with the server's status when the server ends on its own (a failed start is seen at
 * once, not after the start timeout).
 */
const GUARDIAN = [
  // A background job's standard input would be /dev/null: the watcher reads ours through fd 3.
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'server=$!',
  '{ cat <&3 >/dev/null; kill -TERM "$server" 2>/dev/null; } &',
  'watcher=$!',
  'trap \'kill -TERM "$server" 2>/dev/null\' EXIT',
  'wait "$server"',
  'status=$?',
  'kill -TERM "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** A server process that ended while it was starting (not one that was slow to answer). */
class ServerExitedError extends Error {}

/**
 * A `temporal server start-dev` process on 127.0.0.1 at a free port, headless. Start one with
 * {@link EmbeddedTemporalServer.start} and stop it with {@link EmbeddedTemporalServer.close};
 * `acquireEmbeddedServer` shares one per process.
 */
export class EmbeddedTemporalServer {
  readonly address: string;
  readonly namespace: string;
  /** The web UI's address, when started with `ui`. */
  readonly uiUrl: string | undefined;
  readonly #stop: () => Promise<void>;
  #closing: Promise<void> | undefined;

  private constructor(address: string, namespace: string, stop: () => Promise<void>, uiUrl?: string) {
    this.address = address;
    this.namespace = namespace;
    this.uiUrl = uiUrl;
    this.#stop = stop;
  }

  static async start(options: EmbeddedServerOptions = {}): Promise<EmbeddedTemporalServer> {
    const namespace = options.namespace ?? 'default';
    // A download can take minutes: said (on standard error unless `log` is given) and, on a
    // terminal, shown as it goes.
    const log = options.log ?? ((line: string) => process.stderr.write(`toolkit-agent: ${line}\n`));
    const progress = !options.log && Boolean(process.stderr.isTTY);
    const cli = await findTemporalCli({ log, progress, ...options.cli });
    if (!cli) return EmbeddedTemporalServer.#startWithSdkDownload(namespace, { ...options, log });
    try {
      return await EmbeddedTemporalServer.#launch(cli.path, namespace, options);
    } catch (error) {
      // Our free port (or one the CLI picked for its other services) may have been taken by another
      // process before the server bound it: one more start, on fresh ports.
      if (!(error instanceof ServerExitedError) || options.port !== undefined) throw error;
      log(`The Temporal dev server stopped while starting; starting it again. ${error.message}`);
      return EmbeddedTemporalServer.#launch(cli.path, namespace, options);
    }
  }

  static async #launch(
    cliPath: string,
    namespace: string,
    options: EmbeddedServerOptions,
  ): Promise<EmbeddedTemporalServer> {
    const port = options.port ?? (await freePort());
    const address = `127.0.0.1:${port}`;
    // A server already there would answer the readiness check in place of the one we start.
    if (options.port !== undefined && !(await portIsFree(port))) {
      throw new ConfigurationError(
        `Port ${port} on 127.0.0.1 is already in use (another Temporal server?): choose another port, or use the server that is there.`,
      );
    }
    const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port)];
    let uiUrl: string | undefined;
    if (options.ui) {
      const ui = typeof options.ui === 'object' ? options.ui : {};
      const uiPort = ui.port ?? port + 1000;
      args.push('--ui-ip', '127.0.0.1', '--ui-port', String(uiPort));
      if (ui.codecEndpoint) args.push('--ui-codec-endpoint', ui.codecEndpoint);
      uiUrl = `http://127.0.0.1:${uiPort}`;
    } else {
      args.push('--headless');
    }
    args.push('--log-level', 'error');
    if (options.metricsPort !== undefined) args.push('--metrics-port', String(options.metricsPort));
    if (options.dbFilename) args.push('--db-filename', options.dbFilename);
    if (namespace !== 'default') args.push('--namespace', namespace);
    // ToolkitAgent and ToolkitTenant, so runs are listable by agent and tenant.
    args.push(...DEV_SERVER_SEARCH_ATTRIBUTE_ARGS);
    for (const [key, value] of Object.entries({ ...EMBEDDED_DYNAMIC_CONFIG, ...options.dynamicConfig })) {
      args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
    }
    const child = spawn('sh', ['-c', GUARDIAN, 'temporal-guardian', cliPath, ...args], {
      stdio: ['pipe', 'ignore', 'pipe'],
      // Its own process group: a Ctrl-C at the terminal goes to this process, which decides (a CLI
      // cancels its run first); the server still ends when this process does (standard input).
      detached: true,
    });
    const stderr = new HeadAndTail(3000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
    const exited = once(child, 'exit');
    const stop = async (): Promise<void> => {
      child.ref();
      child.stdin?.end();
      await exited;
    };
    try {
      await waitUntilServing(address, child, options.startTimeoutMs ?? 60_000, () => stderr.text());
    } catch (error) {
      await stop();
      throw error;
    }
    child.unref();
    for (const stream of [child.stdin, child.stderr])
      (stream as unknown as { unref?: () => void })?.unref?.();
    return new EmbeddedTemporalServer(address, namespace, stop, uiUrl);
  }

  static async #startWithSdkDownload(
    namespace: string,
    options: EmbeddedServerOptions,
  ): Promise<EmbeddedTemporalServer> {
    options.log?.('No temporal CLI available; letting @temporalio/testing download the dev server.');
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        namespace,
        dbFilename: options.dbFilename,
        port: options.port,
        searchAttributes: [TOOLKIT_AGENT, TOOLKIT_TENANT],
      },
    });
    return new EmbeddedTemporalServer(env.address, namespace, () => env.teardown());
  }

  /** Stops the server and waits until its process has exited. Safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= this.#stop();
    return this.#closing;
  }
}

async function waitUntilServing(
  address: string,
  child: ChildProcess,
  timeoutMs: number,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new ServerExitedError(
        `temporal server start-dev exited with ${child.exitCode ?? child.signalCode}:\n${stderr()}`,
      );
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      if (Date.now() > deadline) {
        throw new Error(
          `temporal server start-dev did not answer at ${address} within ${timeoutMs} ms:\n${stderr()}`,
        );
      }
      await sleep(delay);
    }
  }
}

let shared: { server: Promise<EmbeddedTemporalServer>; users: number } | undefined;

/**
 * One embedded server per process, shared by every {@link Agent} that has no `temporal` option.
 * Call the returned `release` when done; the server stops when its last user releases it.
 */
export async function acquireEmbeddedServer(
  options?: EmbeddedServerOptions,
): Promise<{ server: EmbeddedTemporalServer; release: () => Promise<void> }> {
  if (!shared) {
    const entry = { server: EmbeddedTemporalServer.start(options), users: 0 };
    shared = entry;
    entry.server.catch(() => {
      if (shared === entry) shared = undefined;
    });
  }
  const entry = shared;
  entry.users += 1;
  let server: EmbeddedTemporalServer;
  try {
    server = await entry.server;
  } catch (error) {
    entry.users -= 1;
    throw error;
  }
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    entry.users -= 1;
    if (entry.users === 0 && shared === entry) {
      shared = undefined;
      await server.close();
    }
  };
  return { server, release };
}

/** The first and the last `chars` characters of a stream: a panic's message comes first, its stack after. */
class HeadAndTail {
  readonly #chars: number;
  #head = '';
  #tail = '';
  #dropped = false;

  constructor(chars: number) {
    this.#chars = chars;
  }

  push(chunk: string): void {
    const room = this.#chars - this.#head.length;
    if (room > 0) {
      this.#head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (!chunk) return;
    const tail = this.#tail + chunk;
    if (tail.length > this.#chars) this.#dropped = true;
    this.#tail = tail.slice(-this.#chars);
  }

  text(): string {
    return this.#dropped ? `${this.#head}\n[...]\n${this.#tail}` : this.#head + this.#tail;
  }
}
