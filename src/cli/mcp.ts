import type { Command } from 'commander';
import { credentialStoreOf, loadConfig, pickAgent, taskQueueOf } from './config.ts';
import { CliError, note, printJson, UsageError } from './output.ts';
import { untilSignal } from './until-signal.ts';
import { resolveTarget, targetOf, withTargetOptions, type TargetOptions } from './target.ts';

interface McpOptions extends TargetOptions {
  agent: string[];
  stdio?: boolean;
  port: string;
  host: string;
  json?: boolean;
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('Offer agents to MCP clients');
  withTargetOptions(mcp.command('serve'))
    .description("Serve the config's agents as MCP tools (run_<agent>), over Streamable HTTP or stdio")
    .option('-a, --agent <name...>', 'only these agents (default: all of the config)', [])
    .option('--stdio', 'speak MCP on standard input and output (for a client that starts this command)')
    .option('-p, --port <port>', 'HTTP port on --host (0 picks a free one)', '8765')
    .option('--host <host>', 'HTTP address to listen on', '127.0.0.1')
    .option('--json', 'print the URL as one JSON line')
    .addHelpText(
      'after',
      '\nOver HTTP every request must carry Authorization: Bearer $TOOLKIT_AGENT_MCP_TOKEN (the token is read\nfrom that variable, never from the command line).',
    )
    .action(async (opts: McpOptions, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      pickAgent(loaded.config); // fails clearly when there is no agent
      const names = opts.agent.length ? opts.agent : Object.keys(loaded.config.agents);
      for (const name of names) pickAgent(loaded.config, name);
      const bearerToken = process.env.TOOLKIT_AGENT_MCP_TOKEN;
      if (!opts.stdio && !bearerToken) {
        throw new UsageError(
          'Set TOOLKIT_AGENT_MCP_TOKEN to the bearer token HTTP clients must send (or use --stdio).',
        );
      }
      const target = await resolveTarget(targetOf(opts), loaded.config, true);
      const { serveMcp } = await import('../mcp/serve.ts');
      const credentialStore = credentialStoreOf(loaded.config);
      const serving = await serveMcp({
        agents: Object.fromEntries(
          names.map((name) => {
            const agent = loaded.config.agents[name]!;
            return [name, { ...agent, credentialStore: agent.credentialStore ?? credentialStore }];
          }),
        ),
        temporal: { ...target.temporal, taskQueue: taskQueueOf(loaded) },
        transport: opts.stdio
          ? 'stdio'
          : { port: Number(opts.port), host: opts.host, bearerToken: bearerToken! },
        worker: {
          ...(loaded.config.memoryStore ? { memoryStore: loaded.config.memoryStore } : {}),
          ...(loaded.config.encryption ? { encryption: loaded.config.encryption } : {}),
          ...(process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE
            ? { workflowBundle: { codePath: process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE } }
            : {}),
        },
      }).catch((error: Error) => {
        throw new CliError(`Could not serve MCP: ${error.message}`);
      });
      if (serving.url) {
        if (opts.json) printJson({ url: serving.url, tools: names.map((name) => `run_${name}`) });
        else
          process.stdout.write(
            `MCP server ${serving.url} · tools ${names.map((n) => `run_${n}`).join(', ')}\n`,
          );
      }
      note('Serving MCP. Press Ctrl-C to stop.');
      try {
        await untilSignal();
      } finally {
        await serving.close();
        await target.release();
      }
    });
}
