/**
 * Imported first by the CLI: on a Node.js toolkit-agent does not support, one line on standard
 * error (the version found and the versions needed) and exit code 1, before anything else loads.
 */
import { unsupportedNode } from '../node-version.ts';

const problem = unsupportedNode(process.versions.node);
if (problem) {
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
