/**
 * The command's colour policy (https://no-color.org, and `FORCE_COLOR` the other way): `NO_COLOR`
 * set to anything but the empty string turns colour off everywhere, even when `FORCE_COLOR` is also
 * set (a runner that forces colour must not override the user); `FORCE_COLOR` (other than `0` or
 * `false`) turns it on even without a terminal; otherwise a terminal that has colours gets them.
 */
export function useColor(
  stream: Pick<NodeJS.WriteStream, 'isTTY'> & { hasColors?: () => boolean },
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return Boolean(stream.isTTY) && (stream.hasColors?.() ?? true);
}

/**
 * Makes the environment say what {@link useColor} decides, for the libraries that read it themselves
 * (Node's `styleText` and `hasColors`, the spinner's colours, commander's help): a non-empty
 * `NO_COLOR` drops `FORCE_COLOR` (Node lets `FORCE_COLOR` win), and an empty one is dropped (it
 * means "not set" at no-color.org; Node would count it).
 */
export function normalizeColorEnv(env: Record<string, string | undefined> = process.env): void {
  if (env.NO_COLOR === '') delete env.NO_COLOR;
  else if (env.NO_COLOR !== undefined) delete env.FORCE_COLOR;
}
