/**
 * Test-only helpers of the network-access tests: TCP servers and clients on 127.0.0.1 only (raw requests, a
 * "does this port refuse connections" probe, an occupied port). Not imported by production code.
 */
import net from "node:net";

export const LOOPBACK = "127.0.0.1";

/** A TCP server on 127.0.0.1 (port 0: a free one). */
export async function listenLoopback(server: net.Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: LOOPBACK, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return address.port;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  const port = await listenLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether a connection to 127.0.0.1:port is refused (true) or accepted (false, then closed). */
export function refuses(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: LOOPBACK, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") resolve(true);
      else reject(error);
    });
  });
}

/** Sends `text` over a fresh connection and resolves with every byte received until the server closes it. */
export function rawExchange(port: number, text: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: LOOPBACK, port }, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    socket.on("error", reject);
  });
}

/** A connected socket to 127.0.0.1:port with everything it receives, and a promise of its close. */
export interface OpenConnection {
  readonly socket: net.Socket;
  received(): Buffer;
  /** Resolves once `predicate` holds for the bytes received so far. */
  waitFor(predicate: (received: Buffer) => boolean): Promise<Buffer>;
  readonly closed: Promise<void>;
}

export function openConnection(port: number): Promise<OpenConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: LOOPBACK, port });
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("error", () => undefined);
    const waitFor = (predicate: (bytes: Buffer) => boolean): Promise<Buffer> =>
      new Promise((done, fail) => {
        if (predicate(received)) return done(received);
        const onData = (): void => {
          if (!predicate(received)) return;
          socket.off("close", onClose);
          socket.off("data", onData);
          done(received);
        };
        const onClose = (): void => {
          socket.off("data", onData);
          if (predicate(received)) done(received);
          else fail(new Error(`closed before the expected bytes arrived: ${JSON.stringify(received.toString("latin1"))}`));
        };
        socket.on("data", onData);
        socket.once("close", onClose);
      });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve({ socket, received: () => received, closed, waitFor });
    });
    socket.once("error", reject);
  });
}
