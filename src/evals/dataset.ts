import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ConfigurationError } from '../errors.ts';
import type { EvalDataset } from './types.ts';

const caseSchema = z.strictObject({
  name: z.string().min(1),
  prompt: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  expected: z.unknown().optional(),
  tenant: z.string().optional(),
  tags: z.array(z.string()).optional(),
  // A recorded case (`toolkit-agent eval record`) carries what the run did; it runs as a case too.
  recorded: z.record(z.string(), z.unknown()).optional(),
});

const datasetSchema = z.strictObject({
  name: z.string().optional(),
  agent: z.string().optional(),
  cases: z.array(caseSchema),
});

/**
 * Reads a dataset file: JSON (an {@link EvalDataset} without scorers, an array of cases, or one case
 * such as `toolkit-agent eval record` writes), JSONL
 * (one case a line) or a TypeScript / JavaScript module whose default export is an `EvalDataset`
 * (the one kind that can carry scorers). A JSON or JSONL dataset is named after its file.
 */
export async function loadDataset(path: string): Promise<EvalDataset> {
  const file = resolve(path);
  const ext = extname(file);
  if (['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    const loaded = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
    const { scorers, ...data } = (loaded ?? {}) as EvalDataset;
    return { ...checked(datasetSchema, data, path), ...(scorers ? { scorers } : {}) };
  }
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new ConfigurationError(`Cannot read the dataset ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  });
  const named = (data: EvalDataset): EvalDataset => ({ name: data.name ?? basename(file, ext), ...data });
  if (ext === '.jsonl') {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const cases = lines.map((line, i) =>
      checked(caseSchema, parse(line, `${path}:${i + 1}`), `${path}:${i + 1}`),
    );
    return named({ cases });
  }
  const data = parse(text, path);
  const one = !Array.isArray(data) && typeof data === 'object' && data !== null && 'prompt' in data;
  return named(
    checked(datasetSchema, Array.isArray(data) || one ? { cases: one ? [data] : data } : data, path),
  );
}

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`${where} is not JSON: ${(error as Error).message}`, { cause: error });
  }
}

function checked<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigurationError(`${where} is not a dataset: ${issues.join('; ')}`);
}
