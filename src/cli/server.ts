import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { tighten } from '../fs/private-file.ts';
import { dataDir, privateDataDirFor } from '../paths.ts';
import { configuredEncryption, localUiOrigins, startCodecServer, type RunningCodecServer } from './codec.ts';
import { loadConfig, pickAgent } from './config.ts';
import { CliError, note, paint, printJson } from './output.ts';
import {
  readServerState,
  removeServerState,
  targetOf,
  withTargetOptions,
  writeServerState,
  type TargetOptions,
} from './target.ts';
import { untilSignal } from './until-signal.ts';
import { resolveWorkerDeployment, type WorkerDeployment } from '../deploy/worker-deployment.ts';

type WorkerCommandOptions = TargetOptions & { json?: boolean; deploymentName?: string; buildId?: string };

/** The version `worker` serves as: its flags when given (both), else the environment's, else none. */
function deploymentOf(opts: WorkerCommandOptions): WorkerDeployment | undefined {
  if (opts.deploymentName === undefined && opts.buildId === undefined) {
    return resolveWorkerDeployment('toolkit-agent worker', undefined);
  }
  if (opts.deploymentName === undefined || opts.buildId === undefined) {
    throw new CliError('--deployment-name and --build-id go together: give both, or neither.');
  }
  return resolveWorkerDeployment('toolkit-agent worker', {
    name: opts.deploymentName,
    buildId: opts.buildId,
  });
}

export function registerServer(program: Command): void {
  program
    .command('server')
    .description('Run a persistent local Temporal server (its database under ~/.toolkit-agent) until Ctrl-C')
    .option('-p, --port <port>', 'frontend port on 127.0.0.1', '7233')
    .option('--ui-port <port>', 'web UI port (default: port + 1000)')
    .option('--headless', 'no web UI')
    .option('--db <file>', 'database file (default: ~/.toolkit-agent/temporal.db)')
    .option(
      '--codec-port <port>',
      'port of the codec server started for the UI when payload keys are configured',
    )
    .option('--json', 'print the address as one JSON line')
    .action(
      async (
        opts: {
          port: string;
          uiPort?: string;
          headless?: boolean;
          db?: string;
          codecPort?: string;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        const running = await readServerState();
        if (running) {
          throw new CliError(
            `A toolkit-agent server already runs at ${running.address} (pid ${running.pid}).`,
          );
        }
        const port = Number(opts.port);
        const db = opts.db ?? join(dataDir(), 'temporal.db');
        privateDataDirFor(db);
        await mkdir(dirname(db), { recursive: true, mode: 0o700 });
        const uiPort = opts.uiPort ? Number(opts.uiPort) : port + 1000;
        // With payload keys, the UI gets a codec server on loopback, so it shows encrypted runs decoded.
        const encryption = opts.headless
          ? undefined
          : await configuredEncryption(cmd.optsWithGlobals<{ config?: string }>().config);
        let codec: RunningCodecServer | undefined;
        if (encryption) {
          codec = await startCodecServer({
            encryption,
            origins: localUiOrigins(uiPort),
            namespaces: ['default'],
            ...(opts.codecPort ? { port: Number(opts.codecPort) } : {}),
          });
        }
        const { EmbeddedTemporalServer } = await import('../embedded/dev-server.ts');
        const server = await EmbeddedTemporalServer.start({
          port,
          dbFilename: db,
          ui: opts.headless ? false : { port: uiPort, ...(codec ? { codecEndpoint: codec.url } : {}) },
          log: note,
          cli: { progress: Boolean(process.stderr.isTTY) },
        }).catch(async (error: unknown) => {
          await codec?.close();
          throw error;
        });
        // The server's history holds every run's inputs and outputs: the owner's alone.
        for (const file of [db, `${db}-wal`, `${db}-shm`]) tighten(file, 0o600);
        const state = {
          address: server.address,
          namespace: server.namespace,
          uiUrl: server.uiUrl,
          ...(codec ? { codecEndpoint: codec.url } : {}),
          db,
          pid: process.pid,
        };
        await writeServerState(state);
        if (opts.json) printJson(state);
        else {
          process.stdout.write(
            `Temporal server  ${paint('bold', server.address)} (namespace ${server.namespace})\n`,
          );
          if (server.uiUrl) process.stdout.write(`Temporal UI      ${paint('cyan', server.uiUrl)}\n`);
          if (codec) {
            process.stdout.write(`Codec endpoint   ${codec.url} (the UI shows encrypted payloads decoded)\n`);
          }
          process.stdout.write(`Database         ${db}\n`);
          note('Ready. Other toolkit-agent commands use this server. Press Ctrl-C to stop.');
        }
        await untilSignal();
        await removeServerState();
        await server.close();
        await codec?.close();
      },
    );

  withTargetOptions(program.command('worker'))
    .description("Serve the config's agents on their task queue until Ctrl-C")
    .option('--json', 'print the task queue as one JSON line')
    .option(
      '--deployment-name <name>',
      'serve as a version of this worker deployment (default: $TEMPORAL_DEPLOYMENT_NAME); needs --build-id',
    )
    .option('--build-id <id>', "this build's id in the deployment (default: $TEMPORAL_WORKER_BUILD_ID)")
    .action(async (opts: WorkerCommandOptions, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      pickAgent(loaded.config); // fails clearly when there is no agent to serve
      const deployment = deploymentOf(opts);
      const { serve } = await import('./serving.ts');
      const serving = await serve(loaded, {
        ...targetOf(opts),
        worker: true,
        temporary: false,
        ...(deployment ? { deployment } : {}),
      });
      const info = {
        address: serving.target.address,
        namespace: serving.target.namespace,
        taskQueue: serving.taskQueue,
        agents: Object.keys(loaded.config.agents),
        ...(deployment ? { deployment } : {}),
      };
      if (opts.json) printJson(info);
      else {
        process.stdout.write(
          `Serving ${info.agents.join(', ')} on task queue ${paint('bold', info.taskQueue)} at ${info.address}` +
            (deployment ? ` as ${paint('bold', `${deployment.name}.${deployment.buildId}`)}` : '') +
            '\n',
        );
        note('Press Ctrl-C to stop.');
      }
      try {
        await Promise.race([untilSignal(), serving.running]);
      } finally {
        await serving.close();
      }
    });
}
