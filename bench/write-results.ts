import { mkdir, writeFile } from 'node:fs/promises';

/** Writes bench/results/<name>.json (the figures) and <name>.md (the table), and prints the table. */
export async function writeResults(name: string, results: unknown, table: string): Promise<void> {
  const folder = new URL('./results/', import.meta.url);
  await mkdir(folder, { recursive: true });
  await writeFile(new URL(`${name}.json`, folder), `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(new URL(`${name}.md`, folder), table);
  console.log(table);
}
