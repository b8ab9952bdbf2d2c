import type { MarkdownBlock } from '../markdown-blocks.ts';

/** The Notion API version sent with every request (the current one in Notion's official SDK). */
export const NOTION_VERSION = '2025-09-03';

/** Notion caps a text object at 2,000 characters. */
function richText(text: string) {
  const chunks = text.match(/[\s\S]{1,2000}/g) ?? [''];
  return chunks.map((content) => ({ type: 'text', text: { content } }));
}

/** One Markdown block as a Notion block. */
export function toNotionBlock(block: MarkdownBlock): Record<string, unknown> {
  switch (block.type) {
    case 'heading': {
      const type = `heading_${block.level}`;
      return { object: 'block', type, [type]: { rich_text: richText(block.text) } };
    }
    case 'bullet':
      return {
        object: 'block',
        type: 'bulleted_list_item',
        bulleted_list_item: { rich_text: richText(block.text) },
      };
    case 'numbered':
      return {
        object: 'block',
        type: 'numbered_list_item',
        numbered_list_item: { rich_text: richText(block.text) },
      };
    case 'code':
      return {
        object: 'block',
        type: 'code',
        code: { rich_text: richText(block.text), language: block.language },
      };
    default:
      return { object: 'block', type: 'paragraph', paragraph: { rich_text: richText(block.text) } };
  }
}
