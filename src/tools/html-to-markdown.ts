import type TurndownService from 'turndown';
import { importOptional } from '../optional-dependency.ts';

/**
 * HTML to Markdown with turndown (an optional peer dependency, loaded on first use): `feature` names
 * what needs it in the error when the package is not installed.
 */
export async function htmlToMarkdown(
  html: string,
  feature: string,
  options: { codeBlockStyle?: 'fenced' | 'indented' } = {},
): Promise<string> {
  const { default: Turndown } = await importOptional<{ default: typeof TurndownService }>(
    'turndown',
    feature,
  );
  return new Turndown({ headingStyle: 'atx', ...options })
    .remove(['style', 'script', 'head', 'title'])
    .turndown(html);
}
