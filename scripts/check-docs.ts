/**
 * Docs that cannot rot (`npm run check:docs`, after `npm run build`):
 * - every relative link and anchor in README.md and docs/ resolves (anchors as GitHub makes them);
 * - the README's map links every page in docs/;
 * - every TypeScript code block type-checks against the built package, as a user's module that
 *   imports `toolkit-agent` (strict, nodenext), exactly as shown: a reader who copies a block gets
 *   what was checked. A block whose info string says `ts fragment` is a fragment: it is listed as
 *   skipped, never checked silently or dropped silently;
 * - every block in another language (`python`, `go`, `java`, ...) is an excerpt of the runnable example
 *   the page links last before it (under examples/, run in CI): each of its lines, without its
 *   comment, is a line of that file, in the file's order (`...` elides);
 * - no page hides setup from its reader: a `<!-- prelude ... -->` comment (declarations once checked
 *   with the next block but not shown) is refused, naming its file and line; the imports and setup
 *   lines go in the block itself.
 * Exits 1 naming each file:line that fails.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import ts from 'typescript';

/** The project to check: the first argument, else this repository. */
const ROOT = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'));
const BLOCK_DIR = path.join(ROOT, '.cache', 'doc-blocks');
const TS_LANGS = new Set(['ts', 'typescript']);
/** Languages whose blocks must be excerpts of a runnable example (see checkExcerpts). */
const EXAMPLE_LANGS = new Set(['python', 'py', 'go', 'java', 'csharp', 'cs', 'ruby', 'php']);

interface Page {
  file: string;
  anchors: Set<string>;
  links: { href: string; line: number }[];
  blocks: { code: string; line: number; fragment: boolean }[];
  /** Blocks in another language, with the last example file the page linked before each. */
  excerpts: { code: string; line: number; source?: string }[];
  /** Lines of `<!-- prelude` comments: setup hidden from the reader, refused. */
  preludes: number[];
}

/** An HTML comment that declares what the next block assumes without showing it. */
const PRELUDE = /^\s*<!--\s*prelude\b/;

function markdownFiles(): string[] {
  const docs = path.join(ROOT, 'docs');
  const pages = existsSync(docs)
    ? readdirSync(docs, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md') && !f.startsWith('api'))
        .map((f) => path.join(docs, f))
    : [];
  return [path.join(ROOT, 'README.md'), ...pages.sort()];
}

function readPage(file: string): Page {
  const tokens = new MarkdownIt({ html: true }).parse(readFileSync(file, 'utf8'), {});
  const slugger = new GithubSlugger();
  const page: Page = { file, anchors: new Set(), links: [], blocks: [], excerpts: [], preludes: [] };
  let line = 1;
  tokens.forEach((token, i) => {
    if (token.map) line = token.map[0] + 1;
    if (token.type === 'heading_open') {
      const text = (tokens[i + 1]?.children ?? [])
        .filter((c) => c.type === 'text' || c.type === 'code_inline')
        .map((c) => c.content)
        .join('');
      page.anchors.add(slugger.slug(text));
    }
    if (token.type === 'html_block' && PRELUDE.test(token.content)) page.preludes.push(line);
    if (token.type === 'fence') {
      const [lang, ...flags] = token.info.trim().split(/\s+/);
      if (TS_LANGS.has(lang ?? '')) {
        page.blocks.push({ code: token.content, line: line + 1, fragment: flags.includes('fragment') });
      }
      if (EXAMPLE_LANGS.has(lang ?? '')) {
        const source = page.links.findLast(({ href }) => /(^|\/)examples\//.test(href))?.href;
        page.excerpts.push({ code: token.content, line: line + 1, ...(source ? { source } : {}) });
      }
    }
    for (const child of token.children ?? []) {
      const href =
        child.type === 'link_open'
          ? child.attrGet('href')
          : child.type === 'image'
            ? child.attrGet('src')
            : null;
      if (href) page.links.push({ href, line });
    }
  });
  return page;
}

function checkLinks(pages: Map<string, Page>): string[] {
  const problems: string[] = [];
  for (const page of pages.values()) {
    for (const { href, line } of page.links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:, ...
      const [target = '', anchor] = href.split('#');
      const where = `${path.relative(ROOT, page.file)}:${line}`;
      const resolved = target ? path.resolve(path.dirname(page.file), decodeURIComponent(target)) : page.file;
      if (!existsSync(resolved)) {
        problems.push(
          `${where}: the link ${href} points at ${path.relative(ROOT, resolved)}, which does not exist`,
        );
        continue;
      }
      if (anchor === undefined || statSync(resolved).isDirectory()) continue;
      const anchors =
        pages.get(resolved)?.anchors ?? (resolved.endsWith('.md') ? readPage(resolved).anchors : null);
      if (anchors && !anchors.has(anchor)) {
        problems.push(
          `${where}: the link ${href} names #${anchor}, which is no heading of ${path.relative(ROOT, resolved)}`,
        );
      }
    }
  }
  const readme = pages.get(path.join(ROOT, 'README.md'));
  const mapped = new Set(readme?.links.map((l) => path.resolve(ROOT, l.href.split('#')[0] ?? '')));
  for (const file of pages.keys()) {
    if (file !== readme?.file && !mapped.has(file)) {
      problems.push(`README.md: the docs map does not link ${path.relative(ROOT, file)}; add it to the map`);
    }
  }
  return problems;
}

function checkBlocks(pages: Map<string, Page>): { problems: string[]; checked: number; skipped: string[] } {
  rmSync(BLOCK_DIR, { recursive: true, force: true });
  mkdirSync(BLOCK_DIR, { recursive: true });
  writeFileSync(path.join(BLOCK_DIR, 'package.json'), '{ "type": "module" }\n');
  // A user's project: `toolkit-agent` resolves through the package's own exports to dist/.
  mkdirSync(path.join(BLOCK_DIR, 'node_modules'));
  symlinkSync(ROOT, path.join(BLOCK_DIR, 'node_modules', 'toolkit-agent'), 'dir');
  const origin = new Map<string, { where: string; line: number }>();
  const skipped: string[] = [];
  const hidden: string[] = [];
  for (const page of pages.values()) {
    const name = path.relative(ROOT, page.file).replace(/[/.]/g, '_');
    for (const line of page.preludes) {
      hidden.push(
        `${path.relative(ROOT, page.file)}:${line}: a <!-- prelude --> comment hides setup from the reader; ` +
          'put its imports and setup lines in the block itself, so the block runs as shown',
      );
    }
    for (const block of page.blocks) {
      const where = `${path.relative(ROOT, page.file)}:${block.line}`;
      if (block.fragment) {
        skipped.push(where);
        continue;
      }
      const file = path.join(BLOCK_DIR, `${name}_${block.line}.ts`);
      writeFileSync(file, `${block.code}\nexport {};\n`);
      origin.set(file, { where: path.relative(ROOT, page.file), line: block.line });
    }
  }
  const program = ts.createProgram([...origin.keys()], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  });
  const typeErrors = ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    const from = d.file && origin.get(path.resolve(d.file.fileName));
    if (!d.file || !from || d.start === undefined) return `${d.file?.fileName ?? 'tsc'}: ${message}`;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${from.where}:${from.line + line}: ${message}`;
  });
  return { problems: [...hidden, ...typeErrors], checked: origin.size, skipped };
}

/**
 * Blocks in other languages are excerpts of the runnable examples CI runs: each line of a block
 * (without its `#` or `//` comment; `...` elides) is a line of the example the page linked last
 * before the block, in order, so a snippet cannot drift from code that runs.
 */
function checkExcerpts(pages: Map<string, Page>): { problems: string[]; checked: number } {
  const problems: string[] = [];
  const bare = (text: string) => text.replace(/\s+(#|\/\/)\s.*$/, '').trim();
  let checked = 0;
  for (const page of pages.values()) {
    for (const { code, line, source } of page.excerpts) {
      const where = `${path.relative(ROOT, page.file)}:${line}`;
      const file = source && path.resolve(path.dirname(page.file), source.split('#')[0]!);
      if (!file || !existsSync(file)) {
        problems.push(
          `${where}: a block in another language must follow a link to the example it is taken from`,
        );
        continue;
      }
      checked += 1;
      const lines = readFileSync(file, 'utf8').split('\n').map(bare);
      let at = 0;
      for (const [offset, text] of code.split('\n').entries()) {
        const wanted = bare(text);
        if (!wanted || wanted === '...' || /^(#|\/\/)/.test(wanted)) continue;
        const found = lines.indexOf(wanted, at);
        if (found < 0) {
          problems.push(
            `${where.replace(/:\d+$/, '')}:${line + offset}: "${wanted}" is not a line of ${path.relative(ROOT, file)} (after the lines before it); copy the example's lines`,
          );
          break;
        }
        at = found + 1;
      }
    }
  }
  return { problems, checked };
}

if (!existsSync(path.join(ROOT, 'dist', 'index.d.ts'))) {
  console.error(
    'check:docs type-checks the code blocks against the built package: run `npm run build` first.',
  );
  process.exit(1);
}
const pages = new Map(markdownFiles().map((f) => [f, readPage(f)]));
const linkProblems = checkLinks(pages);
const { problems: tsProblems, checked, skipped } = checkBlocks(pages);
const excerpts = checkExcerpts(pages);
const blockProblems = [...tsProblems, ...excerpts.problems];
const links = [...pages.values()].reduce((n, p) => n + p.links.length, 0);
console.log(
  `${pages.size} pages, ${links} links, ${checked} TypeScript blocks type-checked, ` +
    `${excerpts.checked} blocks in other languages matched to their examples.`,
);
for (const where of skipped) console.log(`skipped (marked fragment): ${where}`);
for (const problem of [...linkProblems, ...blockProblems]) console.error(problem);
if (linkProblems.length + blockProblems.length > 0) {
  console.error(`${linkProblems.length} link problem(s), ${blockProblems.length} code block problem(s).`);
  process.exit(1);
}
