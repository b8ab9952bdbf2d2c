import type { Command } from 'commander';
import { credentialStoreOf, loadConfig, pickAgent, taskQueueOf } from './config.ts';
import { CliError, note, printJson, UsageError } from './output.ts';
import { untilSignal } from './until-signal.ts';
import { resolveTarget, targetOf, withTargetOptions, type TargetOptions } from './target.ts';

interface A2aOptions extends TargetOptions {
  agent: string[];
  port: string;
  host: string;
  publicUrl?: string;
  json?: boolean;
}

export function registerA2a(program: Command): void {
  const a2a = program.command('a2a').description('Offer agents to A2A clients (the Agent2Agent protocol)');
  withTargetOptions(a2a.command('serve'))
    .description("Serve the config's agents over A2A (JSON-RPC), each at /<agent>/ with its agent card")
    .option('-a, --agent <name...>', 'only these agents (default: all of the config)', [])
    .option('-p, --port <port>', 'HTTP port on --host (0 picks a free one)', '8766')
    .option('--host <host>', 'HTTP address to listen on', '127.0.0.1')
    .option('--public-url <url>', 'the base URL clients reach this server at (in the agent cards)')
    .option('--json', 'print the URLs as one JSON line')
    .addHelpText(
      'after',
      '\nEvery request must carry Authorization: Bearer $TOOLKIT_AGENT_A2A_TOKEN (the token is read from\nthat variable, never from the command line).',
    )
    .action(async (opts: A2aOptions, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      pickAgent(loaded.config); // fails clearly when there is no agent
      const names = opts.agent.length ? opts.agent : Object.keys(loaded.config.agents);
      for (const name of names) pickAgent(loaded.config, name);
      const bearerToken = process.env.TOOLKIT_AGENT_A2A_TOKEN;
      if (!bearerToken)
        throw new UsageError('Set TOOLKIT_AGENT_A2A_TOKEN to the bearer token A2A clients must send.');
      const target = await resolveTarget(targetOf(opts), loaded.config, true);
      const { serveA2a } = await import('../a2a/serve.ts');
      const credentialStore = credentialStoreOf(loaded.config);
      const serving = await serveA2a({
        agents: Object.fromEntries(
          names.map((name) => {
            const agent = loaded.config.agents[name]!;
            return [name, { ...agent, credentialStore: agent.credentialStore ?? credentialStore }];
          }),
        ),
        temporal: { ...target.temporal, taskQueue: taskQueueOf(loaded) },
        transport: {
          port: Number(opts.port),
          host: opts.host,
          bearerToken,
          ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
        },
        worker: {
          ...(loaded.config.memoryStore ? { memoryStore: loaded.config.memoryStore } : {}),
          ...(loaded.config.encryption ? { encryption: loaded.config.encryption } : {}),
          ...(process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE
            ? { workflowBundle: { codePath: process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE } }
            : {}),
        },
      }).catch((error: Error) => {
        throw new CliError(`Could not serve A2A: ${error.message}`);
      });
      if (opts.json) printJson({ url: serving.url, agents: serving.agentUrls });
      else
        process.stdout.write(
          `A2A server ${serving.url} · ${Object.entries(serving.agentUrls)
            .map(([name, url]) => `${name} ${url}`)
            .join(', ')}\n`,
        );
      note('Serving A2A. Press Ctrl-C to stop.');
      try {
        await untilSignal();
      } finally {
        await serving.close();
        await target.release();
      }
    });
}
