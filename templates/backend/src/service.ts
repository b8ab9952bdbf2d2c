/**
 * The backend service: it holds only an AgentClient. `POST /tickets/:id/triage` starts a run and
 * answers 202 with its id; `GET /runs/:id` waits for the run and answers its typed result.
 */
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { AgentClient, OutputValidationError } from 'toolkit-agent';
import { TASK_QUEUE, Triage } from './agents.ts';

export async function startService(address: string, port: number) {
  const agents = await AgentClient.connect({ address, taskQueue: TASK_QUEUE });
  const json = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((request, response) => {
    const ticket = /^\/tickets\/(\w+)\/triage$/.exec(request.url ?? '')?.[1];
    const run = /^\/runs\/([\w-]+)$/.exec(request.url ?? '')?.[1];
    if (request.method === 'POST' && ticket) {
      agents.startRun('triage', `Triage ticket ${ticket}.`, { output: Triage }).then(
        (handle) => json(response, 202, { run: handle.workflowId }),
        (error: Error) => json(response, 500, { error: error.message }),
      );
    } else if (request.method === 'GET' && run) {
      agents
        .getHandle<Triage>(run)
        .result()
        .then(
          (result) =>
            result.metadata.stop_reason === 'completed'
              ? json(response, 200, result.output)
              : // A deadline, a budget, or the iterations ran out before an answer (small models do).
                json(response, 502, {
                  error: `The run ended (${result.metadata.stop_reason}) without an answer.`,
                  stop_reason: result.metadata.stop_reason,
                }),
          (error: Error) =>
            json(response, error instanceof OutputValidationError ? 502 : 500, { error: error.message }),
        );
    } else {
      response.writeHead(404).end();
    }
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await agents.close();
    },
  };
}
