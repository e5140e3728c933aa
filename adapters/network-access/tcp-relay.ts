/**
 * The network-access relay: a TCP listener that forwards every connection's bytes unchanged to the origin and
 * back (no parsing, no header rewriting), so HTTP, the event, review and terminal WebSockets and Vite HMR work
 * through it as they do directly.
 *
 * Rules it keeps:
 * - Every relayed connection is a pair (remote client, upstream to the origin), tracked until both sides are gone.
 *   An error or a full close of either side destroys both; a half-close (FIN) is forwarded as it is.
 * - `close()` stops listening at once (the port is free when it resolves) and then closes the pairs: the client's
 *   bytes stop flowing to the origin (they are dropped), and once the origin has no request in flight on the pair (`originIdle`) the
 *   upstream side is ended gracefully: the origin finishes and closes its side, the pipe carries the rest of its
 *   bytes out and then ends the client. So a request that travelled through this relay (the PUT that disabled it)
 *   still gets its whole response. Whatever remains after `closeGraceMs` is destroyed. `drained` resolves when
 *   every pair is gone.
 */
import net from "node:net";

export const DEFAULT_CLOSE_GRACE_MS = 1500;

export interface RelayTarget {
  readonly host: string;
  readonly port: number;
}

export interface TcpRelayOptions {
  /** The address to listen on ("0.0.0.0" in production; tests use 127.0.0.1). */
  readonly host: string;
  /** The port; 0 selects a free one. */
  readonly port: number;
  /** Where the origin listens (a reachable address, never a wildcard). */
  readonly target: RelayTarget;
  /** Resolves once the origin has no request in flight on the connection from `upstream`. Default: at once. */
  readonly originIdle?: (upstream: net.Socket) => Promise<void>;
  /** How long a closing relay's connections may take to finish before they are destroyed. */
  readonly closeGraceMs?: number;
  /** Errors of the listener after it started (a failed accept). */
  readonly onError?: (error: Error) => void;
}

export interface TcpRelay {
  readonly host: string;
  /** The port it listens on (the chosen one when 0 was asked). */
  readonly port: number;
  /** Open relayed connections. */
  connections(): number;
  /** Stops listening (resolves once the port is free), then closes the connections in the background. */
  close(): Promise<void>;
  /** Resolves once closed and every connection is gone. */
  readonly drained: Promise<void>;
}

/** A relay that could not listen; `code` is Node's error code (EADDRINUSE, EACCES, ...). */
export class RelayListenError extends Error {
  readonly code: string | undefined;
  readonly host: string;
  readonly port: number;

  constructor(host: string, port: number, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`Could not listen on ${host}:${port}: ${detail}`, { cause });
    this.name = "RelayListenError";
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
    this.host = host;
    this.port = port;
  }
}

interface Pair {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
}

function destroyPair(pair: Pair): void {
  pair.client.destroy();
  pair.upstream.destroy();
}

export async function startTcpRelay(options: TcpRelayOptions): Promise<TcpRelay> {
  const graceMs = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
  const pairs = new Set<Pair>();
  let closing = false;
  const server = net.createServer({ allowHalfOpen: true, noDelay: true });
  const drained = new Promise<void>((resolve) => server.once("close", () => resolve()));

  /** Stop the client's bytes, wait until the origin answered what it is answering, then end the upstream side. */
  const retire = (pair: Pair): void => {
    // Unpiped and flowing: what the client still sends is dropped, and its FIN is read (the pair can close).
    pair.client.unpipe(pair.upstream);
    pair.client.resume();
    const idle = options.originIdle?.(pair.upstream) ?? Promise.resolve();
    idle.then(
      () => pair.upstream.end(),
      () => destroyPair(pair),
    );
  };

  server.on("connection", (client) => {
    if (closing) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: options.target.host, port: options.target.port, allowHalfOpen: true, noDelay: true });
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    const gone = (): void => {
      destroyPair(pair);
      pairs.delete(pair);
    };
    client.on("error", gone);
    upstream.on("error", gone);
    client.on("close", gone);
    upstream.on("close", gone);
    client.pipe(upstream);
    upstream.pipe(client);
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => reject(new RelayListenError(options.host, options.port, error));
    server.once("error", failed);
    server.listen({ host: options.host, port: options.port, exclusive: true }, () => {
      server.off("error", failed);
      resolve();
    });
  });
  server.on("error", (error) => options.onError?.(error));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;

  return {
    host: options.host,
    port,
    connections: () => pairs.size,
    drained,
    async close() {
      if (closing) return;
      closing = true;
      // Closing the listening handle frees the port at once; the callback waits for the connections.
      server.close();
      for (const pair of pairs) retire(pair);
      if (pairs.size > 0) {
        const timer = setTimeout(() => {
          for (const pair of pairs) destroyPair(pair);
        }, graceMs);
        timer.unref();
        void drained.then(() => clearTimeout(timer));
      }
    },
  };
}
