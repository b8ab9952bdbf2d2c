// Installs the CopilotKit page's packages into the folder given (made if missing), as
// test/integration/ag-ui-copilotkit.test.ts would itself: `.ci/run` does it beside the build and names
// the folder in TOOLKIT_AGENT_COPILOTKIT_DIR, so that the test links it instead of installing.
import { mkdir } from 'node:fs/promises';
import { installCopilotKit } from './copilotkit-page.ts';

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node test/support/install-copilotkit.ts <folder>');
  process.exit(2);
}
await mkdir(dir, { recursive: true });
const { ms } = await installCopilotKit(dir);
console.log(`CopilotKit installed in ${dir} in ${(ms / 1000).toFixed(1)} s.`);
