import { existsSync, readFileSync } from 'node:fs';

/** A discovery document's methods flattened: HTTP method, path template and parameters. */
interface DiscoveryMethod {
  id: string;
  httpMethod: string;
  pattern: RegExp;
  /** The method also answers `alt=media` with the file's bytes. */
  supportsMediaDownload: boolean;
  parameters: Record<
    string,
    { location: string; type: string; required?: boolean; enum?: string[]; repeated?: boolean }
  >;
}

interface DiscoveryResource {
  methods?: Record<
    string,
    {
      id: string;
      httpMethod: string;
      path: string;
      parameters?: DiscoveryMethod['parameters'];
      supportsMediaDownload?: boolean;
    }
  >;
  resources?: Record<string, DiscoveryResource>;
}

const SHARED = new URL('../../../../shared/api-schemas/google/', import.meta.url);
/** CI has `shared/` beside the repository; elsewhere the Google stand-in tests say so and skip. */
export const GOOGLE_DISCOVERY_AVAILABLE = existsSync(SHARED);
if (!GOOGLE_DISCOVERY_AVAILABLE) {
  console.warn(
    `Skipping the Google stand-in tests: ${SHARED.pathname} (shared/ beside the repository) is missing.`,
  );
}

/**
 * Checks requests against a Google discovery document (from ../shared/api-schemas/google): the
 * method and path must be one the API has, and every query parameter must be known, of its type,
 * and the required ones present. Answers the problem, or undefined when the request is valid.
 */
export function discoveryValidator(
  file: string,
): (method: string, path: string, query: URLSearchParams) => string | undefined {
  let methods: DiscoveryMethod[] | undefined; // read on first use: a skipped suite needs no file
  return (method, path, query) => {
    methods ??= loadMethods(file);
    const candidates = methods.filter((m) => m.pattern.test(path));
    const match = candidates.find((m) => m.httpMethod === method);
    if (!match)
      return candidates.length
        ? `${method} is not allowed on ${path}`
        : `No method of the API has the path ${path}`;
    for (const [name, value] of query) {
      const parameter = match.parameters[name];
      if (!parameter || parameter.location !== 'query') return `${match.id} has no query parameter ${name}`;
      if (parameter.type === 'integer' && !/^-?\d+$/.test(value))
        return `${match.id}: ${name} must be an integer, not ${value}`;
      if (parameter.type === 'boolean' && !/^(true|false)$/.test(value))
        return `${match.id}: ${name} must be true or false`;
      const media = name === 'alt' && value === 'media' && match.supportsMediaDownload;
      if (parameter.enum && !parameter.enum.includes(value) && !media)
        return `${match.id}: ${name} must be one of ${parameter.enum.join(', ')}`;
    }
    for (const [name, parameter] of Object.entries(match.parameters)) {
      if (parameter.required && parameter.location === 'query' && !query.has(name))
        return `${match.id} needs ${name}`;
    }
    return undefined;
  };
}

function loadMethods(file: string): DiscoveryMethod[] {
  const doc = JSON.parse(readFileSync(new URL(file, SHARED), 'utf8')) as DiscoveryResource & {
    servicePath: string;
    parameters: DiscoveryMethod['parameters'];
  };
  const methods: DiscoveryMethod[] = [];
  const collect = (resource: DiscoveryResource) => {
    for (const m of Object.values(resource.methods ?? {})) {
      const template = `/${doc.servicePath}${m.path}`.replace(/\{\+?(\w+)\}/g, '(?<$1>[^/]+)');
      methods.push({
        id: m.id,
        httpMethod: m.httpMethod,
        pattern: new RegExp(`^${template}$`),
        supportsMediaDownload: m.supportsMediaDownload ?? false,
        parameters: { ...doc.parameters, ...m.parameters },
      });
    }
    for (const child of Object.values(resource.resources ?? {})) collect(child);
  };
  collect(doc);
  return methods;
}
