// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { workflowFiles } from './scripts/workflow-files.ts';

/** Modules that do I/O or read the clock/randomness outside Temporal's control: never in workflow code. */
const IO_MODULES = [
  'undici',
  'gray-matter',
  'zod',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'scratch/**',
      'bench/results/**',
      'docs/api/**',
      '.cache/**',
      '.dependency-cruiser.cjs',
      // Project templates: type-checked as written, against the packed package (test/integration/cli-init-templates.test.ts).
      'templates/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Workflow code is replayed: it must be deterministic and do no I/O (docs/contributing.md). The
    // sandbox is every file the workflow entry point reaches by imports, whatever its name.
    files: workflowFiles(import.meta.dirname),
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({
            name,
            message: 'Workflow code must not do I/O.',
            allowTypeImports: true,
          })),
          patterns: [
            { group: ['node:*'], message: 'Node built-ins are not deterministic in workflows.' },
            {
              group: [
                'fs',
                'fs/*',
                'path',
                'os',
                'child_process',
                'crypto',
                'http',
                'https',
                'net',
                'dns',
                'timers',
                'timers/*',
                'worker_threads',
                'process',
              ],
              message: 'Node built-ins are not deterministic in workflows.',
            },
            {
              group: [
                '../activities/*',
                '../tools/*',
                '../credentials/*',
                '../memory/*',
                '../models/*',
                '../embedded/*',
                '../client/*',
                '../agent/*',
              ],
              message: 'Workflows reach activities through proxies only (type imports are fine).',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'No process access in workflows.' },
        { name: 'fetch', message: 'No network in workflows: call an activity.' },
        { name: 'require', message: 'No dynamic loading in workflows.' },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
