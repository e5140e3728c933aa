/**
 * The server process: `node --import tsx api/main.ts [--port N] [--host H]`.
 * Prints exactly one line to stdout when it listens: `Leyline listening on http://HOST:PORT`.
 * SIGINT/SIGTERM close the app (in-flight requests finish; the onClose hooks drain the runtime host: every
 * worker is disposed, then the session index and the database close) and exit 0.
 * Logs (warnings and errors) go to stderr; LEYLINE_LOG_LEVEL changes the level.
 * Once it listens, runtime workers started from then on get the API base URL (LEYLINE_API_URL, see
 * adapters/runtime-protocol/runtime-protocol.ts): bundled extensions call internal routes such as POST /api/pi/subagent
 * (the spare worker, started before that, gets it with its `open`).
 */
import { pathToFileURL } from "node:url";
import { buildApp, DEFAULT_WEB_DIST_DIR } from "./app.ts";

export interface ServerArgs {
  port: number;
  host: string;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";
const CLOSE_TIMEOUT_MS = 10_000;

/** Parses `--port N`, `--port=N`, `--host H`, `--host=H`; throws on anything else. */
export function parseServerArgs(argv: readonly string[]): ServerArgs {
  const args: ServerArgs = { port: DEFAULT_PORT, host: DEFAULT_HOST };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (flag !== "--port" && flag !== "--host") throw new Error(`Unknown argument: ${arg}`);
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined || value === "") throw new Error(`${flag} needs a value`);
    if (flag === "--port") {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid port: ${value}`);
      args.port = port;
    } else {
      args.host = value;
    }
  }
  return args;
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** The base URL workers call this server at: a wildcard listen address is reached over loopback. */
export function apiUrlFor(host: string, port: number): string {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  return `http://${urlHost(reachable)}:${port}`;
}

async function main(): Promise<void> {
  let args: ServerArgs;
  try {
    args = parseServerArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.stderr.write("Usage: npm start -- [--port N] [--host H]\n");
    process.exit(2);
  }

  // Known once the server listens; workers started before that get none.
  const api: { url: string | undefined } = { url: undefined };
  const app = await buildApp({
    logger: { level: process.env.LEYLINE_LOG_LEVEL ?? "warn", stream: process.stderr },
    webDistDir: DEFAULT_WEB_DIST_DIR,
    // One worker started ahead (pi imported, no session): the first action on a session skips the worker's start.
    runtimeHostOptions: { apiUrl: () => api.url, spareWorker: true },
  });

  // A terminal's Ctrl-C reaches both `npm start`'s wrapper and this process, and the wrapper forwards it too:
  // repeated signals while closing are ignored; a close that hangs is cut short after CLOSE_TIMEOUT_MS.
  let closing = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    setTimeout(() => {
      process.stderr.write(`Leyline did not close within ${CLOSE_TIMEOUT_MS} ms after ${signal}; exiting\n`);
      process.exit(1);
    }, CLOSE_TIMEOUT_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);

  await app.listen({ port: args.port, host: args.host });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : args.port;
  api.url = apiUrlFor(args.host, port);
  process.stdout.write(`Leyline listening on http://${urlHost(args.host)}:${port}\n`);
}

// Run only as the entry point, so tests can import parseServerArgs.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`Leyline failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
