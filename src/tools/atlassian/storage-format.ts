import type { MarkdownBlock } from '../markdown-blocks.ts';

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Markdown blocks as Confluence storage format (XHTML; code as the code macro). */
export function toStorage(blocks: MarkdownBlock[]): string {
  const out: string[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.type === 'bullet' || block.type === 'numbered') {
      const tag = block.type === 'bullet' ? 'ul' : 'ol';
      const items: string[] = [];
      for (; i < blocks.length && blocks[i]!.type === block.type; i++)
        items.push(`<li>${escape(blocks[i]!.text)}</li>`);
      i -= 1;
      out.push(`<${tag}>${items.join('')}</${tag}>`);
    } else if (block.type === 'heading') {
      out.push(`<h${block.level}>${escape(block.text)}</h${block.level}>`);
    } else if (block.type === 'code') {
      out.push(
        `<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">${escape(block.language)}</ac:parameter>` +
          `<ac:plain-text-body><![CDATA[${block.text.replace(/]]>/g, ']]]]><![CDATA[>')}]]></ac:plain-text-body></ac:structured-macro>`,
      );
    } else {
      out.push(`<p>${escape(block.text)}</p>`);
    }
  }
  return out.join('');
}
