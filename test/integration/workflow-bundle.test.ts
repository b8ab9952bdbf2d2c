import { readFile } from 'node:fs/promises';
import ts from 'typescript';
import { describe, expect, inject, it } from 'vitest';

/** Our modules in the bundle (webpack names them `./src/...`). */
function ourModules(code: string): string[] {
  return [...new Set(code.match(/"\.\/src\/[^"]+\.ts"/g) ?? [])].map((id) => id.slice(3, -1));
}

/**
 * Module-level state a module shared by every workflow of a worker thread must not have: `let` and
 * `var` bindings, collections made at module level, arrays it could push to (unless exported, or
 * typed read-only), static fields that are not read-only. (Exported values are frozen by Temporal; object constants stay readable.)
 */
function moduleStateIn(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const at = (node: ts.Node) => `${path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
      if (!(statement.declarationList.flags & ts.NodeFlags.Const)) found.push(`${at(statement)} let/var`);
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (!init) continue;
        if (ts.isNewExpression(init) && /^(Weak)?(Map|Set)$|^Array$/.test(init.expression.getText(source)))
          found.push(`${at(declaration)} ${init.expression.getText(source)} at module level`);
        const readonly =
          declaration.type !== undefined &&
          ts.isTypeOperatorNode(declaration.type) &&
          declaration.type.operator === ts.SyntaxKind.ReadonlyKeyword;
        if (ts.isArrayLiteralExpression(init) && !exported && !readonly)
          found.push(`${at(declaration)} array at module level`);
      }
    }
    if (ts.isClassDeclaration(statement))
      for (const member of statement.members) {
        const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
        const isStatic = modifiers.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
        const readonly = modifiers.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (ts.isPropertyDeclaration(member) && isStatic && !readonly)
          found.push(`${at(member)} static field that is not read-only`);
      }
  }
  return found;
}

/**
 * The workflows bundled from TypeScript sources (what the tests run, built by the global setup with
 * `buildAgentWorkflowBundle`) keep the syntax Node runs natively, as dist/ does: no WeakMap helper
 * per class private field, no helper call per object spread (Temporal's bundler compiles for ES2017).
 */
describe('the workflow bundle built from sources', () => {
  it('keeps private fields and object spread native', async () => {
    const code = await readFile(inject('workflowBundlePath'), 'utf8');
    expect(code).toContain('this.#finished');
    expect(code).not.toMatch(/function _class_private_field_get\b/);
    expect(code).not.toMatch(/function _object_spread\b/);
  });

  it('shares the workflow modules among the workflows of a worker thread', async () => {
    const code = await readFile(inject('workflowBundlePath'), 'utf8');
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    expect(preload).toContain('"./src/workflows/index.ts"');
    expect(preload).toContain('"./src/visibility/workflow-interceptors.ts"');
  });

  it('holds no module-level state in the modules the workflows share', async () => {
    const code = await readFile(inject('workflowBundlePath'), 'utf8');
    const modules = ourModules(code);
    expect(modules).toContain('src/workflows/run-loop.ts');
    const found: string[] = [];
    for (const path of modules) found.push(...moduleStateIn(path, await readFile(path, 'utf8')));
    expect(found).toEqual([]);
  });

  it('finds module-level state where there is some', () => {
    const text = [
      'let count = 0;',
      'const seen = new WeakSet<object>();',
      'const queue: string[] = [];',
      "const NAMES: readonly string[] = ['a'];",
      'export const ARGS = ["a"];',
      'const TABLE = { a: 1 };',
      'class Registry { static entries = 0; static readonly NAME = "r"; }',
    ].join('\n');
    expect(moduleStateIn('example.ts', text)).toEqual([
      'example.ts:1 let/var',
      'example.ts:2 WeakSet at module level',
      'example.ts:3 array at module level',
      'example.ts:7 static field that is not read-only',
    ]);
  });
});
