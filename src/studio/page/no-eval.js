// Imported first: the AI SDK's zod schemas, made as its modules load, would probe for eval()
// (their fast path), which the page's content security policy forbids.
import { config } from 'zod/v4/core';

config({ jitless: true });
