import type * as Server from '@a2a-js/sdk/server';
import type * as Client from '@a2a-js/sdk/client';
import type * as Errors from '@a2a-js/sdk/errors';
import type * as Root from '@a2a-js/sdk';
import { importOptional } from '../optional-dependency.ts';

/**
 * The parts of the A2A SDK (`@a2a-js/sdk`, an optional peer dependency) that `serveA2a` and remote
 * A2A sub-agents use, loaded on first use.
 */
export interface A2aServerSdk {
  JsonRpcTransportHandler: typeof Server.JsonRpcTransportHandler;
  ServerCallContext: typeof Server.ServerCallContext;
  validateVersion: typeof Server.validateVersion;
  /** The card's JSON form (`AgentCard.toJSON`), as clients read it from the well-known URL. */
  AgentCard: typeof Root.AgentCard;
  errors: Pick<
    typeof Errors,
    | 'ExtendedAgentCardNotConfiguredError'
    | 'PushNotificationNotSupportedError'
    | 'RequestMalformedError'
    | 'TaskNotCancelableError'
    | 'TaskNotFoundError'
    | 'UnsupportedOperationError'
  >;
}

export interface A2aClientSdk {
  ClientFactory: typeof Client.ClientFactory;
  ClientFactoryOptions: typeof Client.ClientFactoryOptions;
  JsonRpcTransportFactory: typeof Client.JsonRpcTransportFactory;
  DefaultAgentCardResolver: typeof Client.DefaultAgentCardResolver;
}

const SDK = '@a2a-js/sdk';

/** The server side of the SDK, for `serveA2a`; names the package to install when it is missing. */
export async function loadA2aServerSdk(): Promise<A2aServerSdk> {
  const feature = 'serveA2a (agents as an A2A server)';
  const [server, errors, root] = await Promise.all([
    importOptional<typeof Server>(`${SDK}/server`, feature),
    importOptional<typeof Errors>(`${SDK}/errors`, feature),
    importOptional<typeof Root>(SDK, feature),
  ]);
  return {
    AgentCard: root.AgentCard,
    errors,
    JsonRpcTransportHandler: server.JsonRpcTransportHandler,
    ServerCallContext: server.ServerCallContext,
    validateVersion: server.validateVersion,
  };
}

/** The client side of the SDK, for remote A2A sub-agents. */
export async function loadA2aClientSdk(): Promise<A2aClientSdk> {
  const client = await importOptional<typeof Client>(`${SDK}/client`, 'remote A2A agents as sub-agents');
  return {
    ClientFactory: client.ClientFactory,
    ClientFactoryOptions: client.ClientFactoryOptions,
    JsonRpcTransportFactory: client.JsonRpcTransportFactory,
    DefaultAgentCardResolver: client.DefaultAgentCardResolver,
  };
}
