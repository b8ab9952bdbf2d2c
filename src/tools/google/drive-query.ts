/** A value inside single quotes in Drive query syntax. */
export function quote(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

/** Drive query syntax is passed through; plain words become a full-text search. */
export function driveQuery(query: string): string {
  if (
    /\b(contains|in parents|trashed|mimeType|modifiedTime|fullText|sharedWithMe|starred)\b|[=<>]/.test(query)
  )
    return query;
  return `fullText contains '${quote(query.trim())}' and trashed = false`;
}
