/**
 * Collects up to `max` items through a cursor-paged API (Google's pageToken, Notion's next_cursor,
 * Jira's nextPageToken, Confluence's cursor): `fetchPage` gets the cursor (undefined first) and how
 * many items are still wanted, and answers the page's items and the next cursor, if any.
 */
export async function collectPages<T>(
  max: number,
  fetchPage: (cursor: string | undefined, wanted: number) => Promise<{ items?: T[]; next?: string }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor, max - items.length);
    items.push(...(page.items ?? []));
    cursor = page.next;
  } while (cursor && items.length < max);
  return items.slice(0, max);
}
