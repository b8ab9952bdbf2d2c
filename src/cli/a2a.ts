import type { Command } from 'commander';
import { CliError, printJson, UsageError } from './output.ts';
import { servedAgents, serveUntilStopped } from './serve-agents.ts';
import { withTargetOptions, type TargetOptions } from './target.ts';

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
      const bearerToken = process.env.TOOLKIT_AGENT_A2A_TOKEN;
      if (!bearerToken)
        throw new UsageError('Set TOOLKIT_AGENT_A2A_TOKEN to the bearer token A2A clients must send.');
      const { agents, temporal, worker, target } = await servedAgents(opts, cmd);
      const { serveA2a } = await import('../a2a/serve.ts');
      const serving = await serveA2a({
        agents,
        temporal,
        transport: {
          port: Number(opts.port),
          host: opts.host,
          bearerToken,
          ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
        },
        worker,
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
      await serveUntilStopped('A2A', serving, target);
    });
}
