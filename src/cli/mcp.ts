import type { Command } from 'commander';
import { CliError, printJson, UsageError } from './output.ts';
import { servedAgents, serveUntilStopped } from './serve-agents.ts';
import { withTargetOptions, type TargetOptions } from './target.ts';

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
      const bearerToken = process.env.TOOLKIT_AGENT_MCP_TOKEN;
      if (!opts.stdio && !bearerToken) {
        throw new UsageError(
          'Set TOOLKIT_AGENT_MCP_TOKEN to the bearer token HTTP clients must send (or use --stdio).',
        );
      }
      const { names, agents, temporal, worker, target } = await servedAgents(opts, cmd);
      const { serveMcp } = await import('../mcp/serve.ts');
      const serving = await serveMcp({
        agents,
        temporal,
        transport: opts.stdio
          ? 'stdio'
          : { port: Number(opts.port), host: opts.host, bearerToken: bearerToken! },
        worker,
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
      await serveUntilStopped('MCP', serving, target);
    });
}
