// After `npm run build`: every published entry point imports by the package's name, and exports
// exactly the names listed in api/exports.md (the API report: values and types, read from the
// built declarations). A name added or removed without updating the report fails here; after a
// deliberate change, `npm run check:exports -- --update` rewrites the report for review.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const reportPath = join(root, 'api', 'exports.md');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = Object.entries(manifest.exports)
  .filter(([subpath]) => !subpath.endsWith('.json'))
  .map(([subpath, target]) => ({
    specifier: subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`,
    declarations: join(root, target.types),
  }));

const program = ts.createProgram(
  entries.map((entry) => entry.declarations),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true },
);
const checker = program.getTypeChecker();

/** What a symbol is, as a reader of the report wants to know it. */
function kindOf(symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const f = target.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  if (f & ts.SymbolFlags.Module) return 'namespace';
  return 'other';
}

const sections = [];
for (const { specifier, declarations } of entries) {
  const source = program.getSourceFile(declarations);
  assert.ok(source, `${specifier}: no declarations at ${declarations} (run \`npm run build\` first)`);
  const exported = checker
    .getExportsOfModule(checker.getSymbolAtLocation(source))
    .map((symbol) => ({ name: symbol.getName(), kind: kindOf(symbol) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // The values the declarations promise exist when the module is imported by its published name.
  const module = await import(specifier);
  for (const { name, kind } of exported) {
    if (['class', 'function', 'const', 'enum'].includes(kind)) {
      assert.ok(name in module, `${specifier} declares ${kind} ${name}, but importing it gives none`);
    }
  }
  sections.push(
    `## ${specifier}\n\n${exported.length} ${exported.length === 1 ? 'name' : 'names'}.\n\n${exported.map(({ name, kind }) => `- ${name} (${kind})`).join('\n')}\n`,
  );
}

const report =
  '# Exported names\n\n' +
  'Every name each entry point of the package exports, generated from the built declarations by\n' +
  '`npm run check:exports -- --update` (run `npm run build` first). CI fails when the exports differ\n' +
  'from this file: a change to the public surface is a change to this file, reviewed with it.\n\n' +
  sections.join('\n');

if (process.argv.includes('--update')) {
  writeFileSync(reportPath, report);
  console.log(`wrote ${reportPath}`);
} else {
  let committed = '';
  try {
    committed = readFileSync(reportPath, 'utf8');
  } catch {
    // no report yet: every name below counts as added
  }
  if (committed !== report) {
    const lines = (text) =>
      new Set(text.split('\n').filter((line) => line.startsWith('#') || line.startsWith('- ')));
    const before = lines(committed);
    const after = lines(report);
    let section = '';
    const changes = [];
    for (const line of report.split('\n')) {
      if (line.startsWith('## ')) section = line.slice(3);
      else if (line.startsWith('- ') && !before.has(line)) changes.push(`+ ${section}: ${line.slice(2)}`);
    }
    section = '';
    for (const line of committed.split('\n')) {
      if (line.startsWith('## ')) section = line.slice(3);
      else if (line.startsWith('- ') && !after.has(line)) changes.push(`- ${section}: ${line.slice(2)}`);
    }
    console.error(
      `The package's exports differ from api/exports.md:\n${changes.join('\n') || '(order or wording only)'}\n\n` +
        'If the change is intended, run `npm run build && npm run check:exports -- --update` and commit ' +
        'api/exports.md with it; otherwise export (or stop exporting) the names above.',
    );
    process.exit(1);
  }
  console.log(`ok ${entries.length} entry points export exactly the names in api/exports.md`);
}
