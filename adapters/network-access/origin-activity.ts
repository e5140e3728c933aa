/**
 * Which connections of the origin's HTTP server have a request in flight, so a closing relay can let the response
 * of such a request (for instance the PUT that disabled sharing, sent through that relay) reach its client before
 * the connection closes. Observes the server's `request` events only (WebSocket upgrades are not requests: an
 * upgraded connection counts as idle). A connection is named by its remote end, which is the relay's upstream
 * socket's local end.
 */
import type http from "node:http";
import type net from "node:net";

export interface OriginActivity {
  /** Resolves once the origin's connection from `upstream` (a socket connected to the origin) has no request in flight. */
  idle(upstream: net.Socket): Promise<void>;
  /** Stops observing (pending waits resolve). */
  stop(): void;
}

function endpointKey(address: string | undefined, port: number | undefined): string | null {
  if (address === undefined || port === undefined) return null;
  const plain = address.toLowerCase().startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
  return `${plain}|${port}`;
}

export function trackOriginActivity(server: http.Server): OriginActivity {
  const busy = new Map<string, number>();
  const waiters = new Map<string, Array<() => void>>();
  const release = (key: string): void => {
    const left = (busy.get(key) ?? 1) - 1;
    if (left > 0) {
      busy.set(key, left);
      return;
    }
    busy.delete(key);
    for (const resolve of waiters.get(key) ?? []) resolve();
    waiters.delete(key);
  };
  const onRequest = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    const key = endpointKey(request.socket.remoteAddress, request.socket.remotePort);
    if (key === null) return;
    busy.set(key, (busy.get(key) ?? 0) + 1);
    response.once("close", () => release(key));
  };
  server.on("request", onRequest);
  return {
    idle(upstream) {
      const key = endpointKey(upstream.localAddress, upstream.localPort);
      if (key === null || !busy.has(key)) return Promise.resolve();
      return new Promise((resolve) => {
        const list = waiters.get(key) ?? [];
        list.push(resolve);
        waiters.set(key, list);
      });
    },
    stop() {
      server.off("request", onRequest);
      for (const list of waiters.values()) for (const resolve of list) resolve();
      waiters.clear();
      busy.clear();
    },
  };
}
