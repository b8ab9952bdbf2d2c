import { readFile } from 'node:fs/promises';

/** The folders of the page's bundle, built by `npm run build` next to the compiled handler (`dist/studio/`). */
const BUNDLE_FOLDERS = [
  new URL('./', import.meta.url),
  // Running from the sources (tests, a clone): the build's copy.
  new URL('../../dist/studio/', import.meta.url),
];

const bundled = new Map<string, Promise<string>>();

/** A file of the page's bundle (`page.js`, `page.css`), read once; a clear error when the package was not built. */
export function pageFile(name: 'page.js' | 'page.css'): Promise<string> {
  let file = bundled.get(name);
  if (!file) {
    file = (async () => {
      for (const folder of BUNDLE_FOLDERS) {
        const text = await readFile(new URL(name, folder), 'utf8').catch(() => undefined);
        if (text !== undefined) return text;
      }
      bundled.delete(name);
      throw new Error(`The studio page is not built: run \`npm run build\` (it writes dist/studio/${name}).`);
    })();
    bundled.set(name, file);
  }
  return file;
}

/** The HTML shell: the page's script does the rest, with the API under `base`. */
export function pageHtml(base: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolkit-agent studio</title>
<link rel="icon" href="data:,">
<meta name="toolkit-agent-studio-base" content="${base}">
<link rel="stylesheet" href="${base}studio.css">
</head><body><div id="root"></div><script type="module" src="${base}studio.js"></script></body></html>`;
}
