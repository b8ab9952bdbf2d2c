/**
 * The `toolkit-agent/tools/file_drive` entry point.
 *
 * @module toolkit-agent/tools/file_drive
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import type { CredentialRecord, CredentialStore } from '../../credentials/types.ts';
import { z } from 'zod';
import { ToolInputError } from '../../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { collectPages } from '../../http/collect-pages.ts';
import { ExportTooLargeError, googleRequest, requireScope } from './request.ts';
import { driveQuery, quote } from './drive-query.ts';

const parameters = z.object({
  action: z.enum(['search', 'list', 'get']),
  query: z
    .string()
    .optional()
    .describe("search: words to find in files, or Drive query syntax, e.g. name contains 'budget'"),
  file_id: z.string().optional().describe('get: the file (from search or list)'),
  folder_id: z.string().optional().describe("list: the folder's children (default: recent files)"),
  max_results: z.number().int().min(1).max(100).optional().describe('search/list: default 20'),
});

interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  modifiedTime?: string;
  size?: string;
  webViewLink?: string;
}

const FILE_FIELDS = 'id,name,mimeType,modifiedTime,size,webViewLink';
const METADATA_SCOPES = ['drive.metadata.readonly', 'drive.readonly', 'drive', 'drive.file'];
const CONTENT_SCOPES = ['drive.readonly', 'drive', 'drive.file'];
/** Google's own formats and the text they export as. */
const EXPORTS: Record<string, string> = {
  'application/vnd.google-apps.document': 'text/plain',
  'application/vnd.google-apps.spreadsheet': 'text/csv', // the first sheet
  'application/vnd.google-apps.presentation': 'text/plain',
};
const TEXT_TYPES = /^text\/|^application\/(json|xml|javascript|x-yaml|yaml|csv|x-sh)|\+(json|xml)$/;
const DOWNLOAD_CAP_BYTES = 10 * 1024 * 1024;
const TEXT_CAP_CHARS = 100_000;

export interface FileDriveToolOptions {
  credentialKey?: string;
  credentialStore?: CredentialStore;
}

/**
 * `file_drive` (Google Drive v3, docs/connectors.md): `search` (Drive query syntax, or words as a full-text
 * query), `list` (recent files or a folder's children), and `get` a file's metadata and content:
 * Docs, Sheets and Slides exported as text or CSV, text files downloaded, binary files described.
 */
export class FileDriveTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'file_drive';
  readonly description = 'Search or list cloud drive files, or get a file with its text content.';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'file_drive';
  protected override readonly loginCommand = 'auth google --services file_drive';
  protected override readonly credentialTypes = ['oauth2', 'bearer'] as const;

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    if (args.action === 'get') return getFile(record, context, args.file_id);
    requireScope(record, METADATA_SCOPES, 'Listing files');
    let q: string;
    if (args.action === 'search') {
      if (!args.query?.trim()) throw new ToolInputError('search needs a query.');
      q = driveQuery(args.query);
    } else {
      q = args.folder_id ? `'${quote(args.folder_id)}' in parents and trashed = false` : 'trashed = false';
    }
    const max = args.max_results ?? 20;
    const files = await collectPages<DriveFile>(max, async (pageToken, wanted) => {
      const { json } = await googleRequest(record, context, {
        method: 'GET',
        path: '/drive/v3/files',
        query: {
          q,
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          pageSize: Math.min(wanted, 100),
          orderBy: args.action === 'list' ? 'modifiedTime desc' : undefined,
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
          pageToken,
        },
        service: 'Google Drive',
      });
      const page = json as { files?: DriveFile[]; nextPageToken?: string };
      return { items: page.files, next: page.nextPageToken };
    });
    return {
      text: files.length ? files.map(line).join('\n') : `No files match ${q}.`,
      metadata: { files, q },
    };
  }
}

function line(file: DriveFile): string {
  return `${file.id} | ${file.name} | ${file.mimeType} | ${file.modifiedTime ?? ''}`;
}

async function getFile(
  record: CredentialRecord,
  context: ToolContext,
  fileId: string | undefined,
): Promise<ToolOutput> {
  if (!fileId) throw new ToolInputError('get needs file_id (from search or list).');
  requireScope(record, METADATA_SCOPES, 'Reading file metadata');
  const path = `/drive/v3/files/${encodeURIComponent(fileId)}`;
  const file = (
    await googleRequest(record, context, {
      method: 'GET',
      path,
      query: { fields: FILE_FIELDS, supportsAllDrives: true },
      service: 'Google Drive',
    })
  ).json as DriveFile;
  const heading = `${line(file)}${file.webViewLink ? `\n${file.webViewLink}` : ''}`;
  const exportType = EXPORTS[file.mimeType];
  const size = Number(file.size ?? 0);
  let content: string | undefined;
  let note: string | undefined;
  if (!exportType && !TEXT_TYPES.test(file.mimeType)) {
    note = `A ${file.mimeType} file of ${size} bytes: binary content is not shown.`;
  } else if (!exportType && size > DOWNLOAD_CAP_BYTES) {
    note = `A text file of ${size} bytes: larger than the ${DOWNLOAD_CAP_BYTES / 1024 / 1024} MiB read at most.`;
  } else {
    requireScope(record, CONTENT_SCOPES, 'Reading file content');
    try {
      const { text } = await googleRequest(record, context, {
        method: 'GET',
        path: exportType ? `${path}/export` : path,
        query: exportType ? { mimeType: exportType } : { alt: 'media', supportsAllDrives: true },
        service: 'Google Drive',
      });
      content = text;
    } catch (error) {
      if (!(error instanceof ExportTooLargeError)) throw error;
      note = `${file.name} is too large to export as text (Drive's 10 MB limit); open it at ${file.webViewLink ?? 'its link'}.`;
    }
  }
  const truncated = (content?.length ?? 0) > TEXT_CAP_CHARS;
  const shown = truncated
    ? `${content!.slice(0, TEXT_CAP_CHARS)}\n[… ${content!.length - TEXT_CAP_CHARS} more characters]`
    : content;
  return {
    text: [heading, '', shown ?? note ?? ''].join('\n').trim(),
    metadata: {
      file,
      exportedAs: exportType,
      truncated,
      note,
    },
  };
}
