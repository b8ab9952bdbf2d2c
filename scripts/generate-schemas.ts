/**
 * Generates the wire contract's JSON Schema from the TypeScript types the workflows and the client
 * use (src/contract/wire-types.ts), so the published schema cannot drift from the code:
 *
 *   npm run schemas              # writes schemas/toolkit-agent.schema.json and the workflows' input table
 *   npm run schemas -- --check   # fails when either file differs from what the types give (CI)
 *
 * The input table (src/contract/workflow-inputs.generated.ts) is what the workflows check their
 * input against: the keys of each input, which are required, and their JSON types.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  AnyType,
  createFormatter,
  createParser,
  createProgram,
  DefinitionType,
  SchemaGenerator,
  type BaseType,
  type CompletedConfig,
  type Context,
  type SubNodeParser,
} from 'ts-json-schema-generator';
import * as prettier from 'prettier';
import ts from 'typescript';
import { SkillSchema } from '../src/skills/skill.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaFile = join(root, 'schemas', 'toolkit-agent.schema.json');
const tableFile = join(root, 'src', 'contract', 'workflow-inputs.generated.ts');

/** Each workflow's input, by the name of its definition in the schema. */
const WORKFLOW_INPUTS = {
  agentRun: 'AgentRunWorkflowInput',
  deepAgentRun: 'DeepAgentRunWorkflowInput',
  chatSession: 'ChatSessionWorkflowInput',
  sessionMessage: 'SessionMessageWorkflowInput',
  agentPoller: 'AgentPollerWorkflowInput',
} as const;

type JsonSchema = {
  type?: string | string[];
  $ref?: string;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  definitions?: Record<string, JsonSchema>;
  [key: string]: unknown;
};

/**
 * `Skill` is inferred from a zod schema (a type the generator cannot read): it stands in as a
 * definition of its own, filled from the zod schema itself below.
 */
class SkillReferenceParser implements SubNodeParser {
  supportsNode(node: ts.Node): boolean {
    return ts.isTypeReferenceNode(node) && node.typeName.getText() === 'Skill';
  }
  createType(_node: ts.Node, _context: Context): BaseType {
    return new DefinitionType('Skill', new AnyType());
  }
}

function generate(): JsonSchema {
  const config: CompletedConfig = {
    path: join(root, 'src', 'contract', 'wire-types.ts'),
    tsconfig: join(root, 'tsconfig.json'),
    type: '*',
    skipTypeCheck: true,
    expose: 'export',
    topRef: true,
    jsDoc: 'extended',
    markdownDescription: false,
    sortProps: true,
    strictTuples: false,
    encodeRefs: true,
    additionalProperties: false,
    minify: false,
    extraTags: [],
    functions: 'comment',
    discriminatorType: 'json-schema',
    fullDescription: false,
  };
  const program = createProgram(config);
  const parser = createParser(program, config, (chain) => chain.addNodeParser(new SkillReferenceParser()));
  const schema = new SchemaGenerator(program, parser, createFormatter(config), config).createSchema(
    config.type,
  );
  const skill = z.toJSONSchema(SkillSchema, { target: 'draft-07' }) as JsonSchema;
  delete skill.$schema;
  const definitions = { ...(schema.definitions as Record<string, JsonSchema>), Skill: skill };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'urn:toolkit-agent:wire-contract',
    title: 'toolkit-agent wire contract',
    description:
      'Workflow inputs and results, update, query and signal payloads, and events of toolkit-agent. ' +
      'Generated from its TypeScript types; see docs/calling-from-any-language.md.',
    definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The JSON types a property may have: its own, or those of what it refers to. */
function jsonTypes(property: JsonSchema, definitions: Record<string, JsonSchema>): string[] {
  if (property.$ref) {
    const target = definitions[decodeURIComponent(property.$ref.replace('#/definitions/', ''))];
    return target ? jsonTypes(target, definitions) : [];
  }
  if (property.anyOf) return [...new Set(property.anyOf.flatMap((part) => jsonTypes(part, definitions)))];
  if (property.type === undefined) {
    if ('const' in property) return [typeof property.const === 'string' ? 'string' : 'number'];
    return []; // anything
  }
  const types = Array.isArray(property.type) ? property.type : [property.type];
  return types.map((type) => (type === 'integer' ? 'number' : type));
}

function inputTable(schema: JsonSchema): string {
  const definitions = schema.definitions!;
  const table = Object.fromEntries(
    Object.entries(WORKFLOW_INPUTS).map(([workflow, name]) => {
      let input = definitions[name]!;
      while (input.$ref) input = definitions[decodeURIComponent(input.$ref.replace('#/definitions/', ''))]!;
      const properties = Object.fromEntries(
        Object.entries(input.properties ?? {}).map(([key, property]) => [
          key,
          jsonTypes(property, definitions).sort(),
        ]),
      );
      return [workflow, { required: input.required ?? [], properties }];
    }),
  );
  return [
    '// Generated by `npm run schemas` from src/contract/wire-types.ts: do not edit.',
    '/** The keys of each workflow input, which are required, and the JSON types each may have (none listed: any). */',
    `export const WORKFLOW_INPUTS = ${JSON.stringify(table, null, 2)} as const;`,
    '',
  ].join('\n');
}

/** The text as the project's formatter writes it, so that a formatted checkout matches. */
async function formatted(path: string, text: string): Promise<string> {
  return prettier.format(text, { ...(await prettier.resolveConfig(path)), filepath: path });
}

const schema = generate();
const files = [
  { path: schemaFile, text: await formatted(schemaFile, JSON.stringify(schema)) },
  { path: tableFile, text: await formatted(tableFile, inputTable(schema)) },
];
if (process.argv.includes('--check')) {
  const stale: string[] = [];
  for (const file of files) {
    const committed = await readFile(file.path, 'utf8').catch(() => '');
    if (committed !== file.text) stale.push(file.path.slice(root.length + 1));
  }
  if (stale.length) {
    console.error(
      `The wire contract changed but ${stale.join(' and ')} did not: run \`npm run schemas\` and commit the result.`,
    );
    process.exit(1);
  }
  console.log('The wire contract schema matches the types.');
} else {
  for (const file of files) await writeFile(file.path, file.text);
  console.log(`Wrote ${files.map((file) => file.path.slice(root.length + 1)).join(' and ')}.`);
}
