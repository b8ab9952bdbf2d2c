import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** `python3` or `python`, whichever has pip (PyPI is reachable where other download sites may not be). */
export async function findPythonWithPip(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const python of ['python3', 'python']) {
    try {
      await execFileAsync(python, ['-m', 'pip', '--version'], { env });
      return python;
    } catch {
      // try the next name
    }
  }
  return undefined;
}

/**
 * `pip install --target <folder> <spec>`: a private install that needs no virtualenv or root. With
 * `progress`, pip writes to our standard error (its download bar, on a terminal); else it is quiet.
 */
export async function pipInstallTarget(
  python: string,
  spec: string,
  target: string,
  options: { env?: NodeJS.ProcessEnv; noDeps?: boolean; progress?: boolean } = {},
): Promise<void> {
  const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--target', target, spec];
  if (options.noDeps) args.splice(4, 0, '--no-deps');
  const env = options.env ?? process.env;
  if (!options.progress) {
    args.splice(args.indexOf('--target'), 0, '--quiet');
    await execFileAsync(python, args, { env, maxBuffer: 16 * 1024 * 1024 });
    return;
  }
  args.splice(args.indexOf('--target'), 0, '--progress-bar', 'on');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(python, args, { env, stdio: ['ignore', 2, 2] });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`pip install ${spec} exited with code ${code}`)),
    );
  });
}

/** Runs a short Python program with arguments. */
export async function runPython(
  python: string,
  code: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<void> {
  await execFileAsync(python, ['-c', code, ...args], { env: env ?? process.env });
}
