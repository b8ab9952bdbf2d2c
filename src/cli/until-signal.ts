/** Resolves on the first Ctrl-C or SIGTERM, keeping the process alive until then. */
export function untilSignal(): Promise<NodeJS.Signals> {
  const keepAlive = setInterval(() => undefined, 1 << 30);
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      clearInterval(keepAlive);
      resolve(signal);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
