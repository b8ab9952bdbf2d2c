// Types of consumer-project.mjs, for the tests that use it.
export declare const root: string;
export declare const manifest: { version: string; exports: Record<string, unknown> };
export declare function run(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): string;
export declare function pack(dir?: string): string;
export declare function ourVersion(name: string): string;
export declare function consumerProject(options?: { extra?: string[]; tarball?: string; dir?: string }): {
  dir: string;
  app: string;
  tarball: string;
  remove(): void;
};
export declare const INSTALLED_PROJECT: 'TOOLKIT_AGENT_INSTALLED_PROJECT';
export declare function installedNodeModules(tarball: string): string | undefined;
