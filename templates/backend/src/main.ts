/**
 * `npm start`: the worker and the service in one process, on a Temporal dev server started here
 * (or on TEMPORAL_ADDRESS). In production run them apart, both on your cluster:
 *   TEMPORAL_ADDRESS=temporal:7233 node src/main.ts worker     (as many as you need)
 *   TEMPORAL_ADDRESS=temporal:7233 node src/main.ts service
 */
import { EmbeddedTemporalServer } from 'toolkit-agent';
import { startService } from './service.ts';
import { startWorker } from './worker.ts';

const role = process.argv[2] ?? 'all';
const server = process.env.TEMPORAL_ADDRESS ? undefined : await EmbeddedTemporalServer.start();
const address = process.env.TEMPORAL_ADDRESS ?? server!.address;

const worker = role === 'service' ? undefined : await startWorker(address);
const service = role === 'worker' ? undefined : await startService(address, Number(process.env.PORT ?? 3000));
if (service) {
  console.log(`Service at ${service.url}; try:`);
  console.log(`  curl -X POST ${service.url}/tickets/7/triage       # {"run":"<id>"}`);
  console.log(
    `  curl ${service.url}/runs/<id>                      # {"priority":...,"team":...,"summary":...}`,
  );
}
console.log('Ctrl-C stops.');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await service?.stop();
      worker?.stop();
      await worker?.stopped;
      await server?.close();
    })();
  });
}
