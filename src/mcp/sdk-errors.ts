import { loadedMcpClientSdk, loadedMcpClientV2Sdk } from './sdk.ts';

/**
 * What an error of either MCP SDK line says about a request: the HTTP status the server refused
 * it with, the JSON-RPC error it answered with, or that no answer came (`closed` when the
 * connection closed under it).
 */
export type SdkFailure =
  | { kind: 'http'; status: number }
  | { kind: 'answered'; code: number | string }
  | { kind: 'lost'; closed: boolean };

/** Reads an error of the 1.x SDK or the 2.x client (each can only have come once it was loaded). */
export function sdkFailure(error: unknown): SdkFailure {
  const v1 = loadedMcpClientSdk();
  if (v1 && error instanceof v1.StreamableHTTPError && typeof error.code === 'number')
    return { kind: 'http', status: error.code };
  if (v1 && error instanceof v1.McpError) {
    const closed = error.code === (v1.ErrorCode.ConnectionClosed as number);
    if (closed || error.code === (v1.ErrorCode.RequestTimeout as number)) return { kind: 'lost', closed };
    return { kind: 'answered', code: error.code };
  }
  const v2 = loadedMcpClientV2Sdk();
  if (v2 && error instanceof v2.SdkHttpError) return { kind: 'http', status: error.status };
  if (v2 && error instanceof v2.ProtocolError) return { kind: 'answered', code: error.code };
  if (v2 && error instanceof v2.SdkError) {
    const { ConnectionClosed, RequestTimeout, SendFailed, NotConnected } = v2.SdkErrorCode;
    const closed = error.code === ConnectionClosed || error.code === NotConnected;
    if (closed || error.code === RequestTimeout || error.code === SendFailed) return { kind: 'lost', closed };
    return { kind: 'answered', code: error.code };
  }
  return { kind: 'lost', closed: false };
}
