/**
 * Part of `npm run build`: bundles the studio's page (React, the AI SDK's useChat, Chart.js, Pico CSS;
 * all devDependencies) into dist/studio/page.js and page.css, so `toolkit-agent studio` serves it as
 * built and installs none of them.
 */
import { build } from 'esbuild';

const result = await build({
  entryPoints: [new URL('../src/studio/page/main.jsx', import.meta.url).pathname],
  outfile: new URL('../dist/studio/page.js', import.meta.url).pathname,
  bundle: true,
  format: 'esm',
  jsx: 'automatic',
  minify: true,
  target: 'es2022',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'linked',
  metafile: true,
  logLevel: 'error',
});
for (const [path, output] of Object.entries(result.metafile.outputs)) {
  console.log(`Wrote ${path} (${Math.round(output.bytes / 1024)} KiB)`);
}
