import { ToolInputError } from '../../errors.ts';
import { htmlToMarkdown } from '../html-to-markdown.ts';

/** A part of a Gmail message as `messages.get?format=full` returns it. */
export interface GmailPart {
  mimeType?: string;
  filename?: string;
  headers?: Array<{ name: string; value: string }>;
  body?: { size?: number; data?: string; attachmentId?: string };
  parts?: GmailPart[];
}

export interface MailAttachment {
  filename: string;
  mimeType: string;
  size: number;
  attachmentId?: string;
}

export function header(part: GmailPart | undefined, name: string): string | undefined {
  return part?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

function isAttachment(part: GmailPart): boolean {
  return Boolean(part.filename) || /^\s*attachment/i.test(header(part, 'Content-Disposition') ?? '');
}

/** Decodes a leaf's bytes in the charset its Content-Type names (UTF-8 when none or unknown). */
function decodeText(part: GmailPart, bytes: Buffer): string {
  const charset = /charset="?([^";\s]+)"?/i.exec(header(part, 'Content-Type') ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * The readable text of a message and its attachments: in multipart/alternative the plain part wins
 * and HTML is converted to text only when it is all there is; other multiparts are read in order.
 * `loadBody` fetches a part Gmail left out because it was large (it has an attachmentId instead).
 */
export async function readMessage(
  payload: GmailPart,
  loadBody: (attachmentId: string) => Promise<string>,
): Promise<{ text: string; attachments: MailAttachment[] }> {
  const attachments: MailAttachment[] = [];
  const leafText = async (part: GmailPart): Promise<string> => {
    const data = part.body?.data ?? (part.body?.attachmentId ? await loadBody(part.body.attachmentId) : '');
    const text = decodeText(part, Buffer.from(data, 'base64url'));
    return part.mimeType === 'text/html' ? htmlToMarkdown(text, 'Reading an HTML-only mail message') : text;
  };
  const walk = async (part: GmailPart): Promise<string> => {
    const type = part.mimeType ?? 'text/plain';
    if (isAttachment(part)) {
      attachments.push({
        filename: part.filename || '(unnamed)',
        mimeType: type,
        size: part.body?.size ?? 0,
        ...(part.body?.attachmentId ? { attachmentId: part.body.attachmentId } : {}),
      });
      return '';
    }
    if (type === 'multipart/alternative') {
      const children = part.parts ?? [];
      const best =
        children.find((c) => c.mimeType === 'text/plain') ??
        children.find((c) => c.mimeType?.startsWith('multipart/')) ??
        children.find((c) => c.mimeType === 'text/html');
      return best ? walk(best) : '';
    }
    if (type.startsWith('multipart/')) {
      const texts: string[] = [];
      for (const child of part.parts ?? []) texts.push(await walk(child));
      return texts.filter(Boolean).join('\n\n');
    }
    return type === 'text/plain' || type === 'text/html' ? leafText(part) : '';
  };
  const text = (await walk(payload)).replace(/\r\n/g, '\n').trim();
  return { text, attachments };
}

function refuseLineBreaks(name: string, value: string): void {
  if (/[\r\n]/.test(value))
    throw new ToolInputError(`${name} must be one line: line breaks in mail headers are refused.`);
}

/** RFC 2047 encoded words (UTF-8, base64), each at most 75 characters, for a non-ASCII header. */
export function encodeHeaderWords(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  const words: string[] = [];
  let chunk = '';
  for (const char of value) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join('\r\n ');
}

export interface OutgoingMail {
  to: string;
  subject: string;
  body: string;
  inReplyTo?: string;
  references?: string;
}

/** An RFC 2822 message, UTF-8 text in base64, as the `raw` Gmail's send and drafts take. */
export function composeMessage(mail: OutgoingMail): string {
  refuseLineBreaks('to', mail.to);
  refuseLineBreaks('subject', mail.subject);
  const headers = [
    `To: ${mail.to}`,
    `Subject: ${encodeHeaderWords(mail.subject)}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: base64',
    ...(mail.inReplyTo ? [`In-Reply-To: ${mail.inReplyTo}`] : []),
    ...(mail.references ? [`References: ${mail.references}`] : []),
  ];
  const body = Buffer.from(mail.body.replace(/\r?\n/g, '\r\n'))
    .toString('base64')
    .replace(/.{76}/g, '$&\r\n');
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}\r\n`).toString('base64url');
}
