import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from './output.ts';

/** The project templates of `toolkit-agent init --template <name>`, each a folder under templates/. */
export const PROJECT_TEMPLATES = {
  backend: {
    summary: 'a worker and an HTTP service that starts runs with AgentClient and awaits typed results',
    scripts: {
      start: 'node src/main.ts',
      worker: 'node src/main.ts worker',
      service: 'node src/main.ts service',
    },
    try: ['npm start', 'curl -X POST http://127.0.0.1:3000/tickets/7/triage'],
  },
  chat: {
    summary: 'a chat in a web page, streamed over Server-Sent Events',
    scripts: { start: 'node src/server.ts' },
    try: ['npm start', 'open http://127.0.0.1:3000/'],
  },
  triggers: {
    summary: 'signed webhooks and a schedule that start runs',
    scripts: { start: 'node src/main.ts', 'send-event': 'node src/send-event.ts' },
    try: ['npm start', 'npm run send-event'],
  },
} as const satisfies Record<
  string,
  { summary: string; scripts: Record<string, string>; try: readonly string[] }
>;

export type ProjectTemplate = keyof typeof PROJECT_TEMPLATES;

/** templates/ of this package, from src/cli/ or dist/cli/ alike. */
const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

/** The template named on the command line, or a CliError listing the valid names. */
export function projectTemplate(name: string): ProjectTemplate {
  if (Object.hasOwn(PROJECT_TEMPLATES, name)) return name as ProjectTemplate;
  const valid = Object.entries(PROJECT_TEMPLATES).map(([id, t]) => `  ${id.padEnd(10)}${t.summary}`);
  throw new CliError(
    `There is no template "${name}". Choose one of:\n${valid.join('\n')}\n` +
      'or leave --template out for a toolkit-agent.config.ts project.',
  );
}

/** The files a template writes into `dir`: its own and the shared ones (the model choice, tsconfig.json). */
export async function projectTemplateFiles(
  template: ProjectTemplate,
  dir: string,
): Promise<Array<{ path: string; text: string }>> {
  const files: Array<{ path: string; text: string }> = [];
  for (const source of [join(TEMPLATES_DIR, 'shared'), join(TEMPLATES_DIR, template)]) {
    for (const entry of await readdir(source, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      files.push({ path: join(dir, relative(source, file)), text: await readFile(file, 'utf8') });
    }
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
