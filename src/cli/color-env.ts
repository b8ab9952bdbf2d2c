/**
 * Imported first by the command (`main.ts`): settles the colour switches before any library reads
 * them ({@link normalizeColorEnv}).
 */
import { normalizeColorEnv } from './color.ts';

normalizeColorEnv();
