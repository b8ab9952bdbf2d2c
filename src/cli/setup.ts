import type { Command } from 'commander';
import { connect, type ConnectOptions } from './connect.ts';
import { printJson } from './output.ts';
import { withTargetOptions } from './target.ts';

/** `toolkit-agent setup`: registers the search attributes on the namespace (docs/observability.md). */
export function registerSetup(program: Command): void {
  withTargetOptions(
    program
      .command('setup')
      .description(
        'Register the ToolkitAgent and ToolkitTenant search attributes on the namespace (once per namespace; safe to repeat)',
      ),
  )
    .option('--json', 'print what was registered as one JSON line')
    .action(async (opts: ConnectOptions, cmd: Command) => {
      const { registerSearchAttributes } = await import('../visibility/register-search-attributes.ts');
      const { agents } = await connect(opts, cmd);
      const registered = await registerSearchAttributes(agents.client).finally(() => agents.close());
      if (opts.json) return printJson(registered);
      const { namespace, added, present } = registered;
      if (added.length > 0) console.log(`Registered ${added.join(' and ')} on namespace ${namespace}.`);
      if (present.length > 0)
        console.log(`Already registered on namespace ${namespace}: ${present.join(', ')}.`);
    });
}
