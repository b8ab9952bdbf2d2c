/**
 * Imported first by every entry point of the library: on a Node.js toolkit-agent does not support,
 * importing the package throws {@link UnsupportedNodeError} (one line: the version found and the
 * versions needed) before any dependency can crash in a way that names neither.
 */
import { UnsupportedNodeError, unsupportedNode } from './node-version.ts';

const problem = unsupportedNode(process.versions.node);
if (problem) throw new UnsupportedNodeError(problem);
