/**
 * WS /api/pi/terminal (spec "Terminal WebSocket"): a shell, or a terminal editor, on a real PTY
 * (adapters/terminal/), carried over one WebSocket. domain/contract/terminal-socket.ts is the protocol.
 *
 * A connection resolves what to start (adapters/terminal/terminal-launch.ts: the session's folder without
 * changing the selection, or the active runtime's; an editor plan from the injected `editorTerminal`), then
 * sends `ready` and the program's output as `data`; the program's exit sends `exit` and closes the socket; a
 * setup failure sends `error` and closes it (close code 1000 both). Closing the socket, a missed heartbeat and
 * the app closing end the terminal: every process it started (PtySession.end: SIGHUP, then SIGKILL).
 *
 * Client messages (`input`, `resize`) may arrive before the PTY starts: they are applied in order once it does
 * (the last resize also sets its first size; at most TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES * 16 may wait). A
 * message over 64 KiB closes the socket with 1009; binary messages, malformed JSON and unknown types are ignored.
 *
 * Bounds: output is coalesced (at most one message per 8 ms or per 64 Ki characters); when the socket holds more
 * than OUTPUT_HIGH_WATER_BYTES unsent, the PTY is paused (the program blocks on its full PTY) until the socket has
 * drained to OUTPUT_LOW_WATER_BYTES, so a program writing without end cannot exhaust the server's memory.
 *
 * Heartbeat: WebSocket ping frames every `heartbeatMs` (30 s); a socket that did not answer the previous one is
 * terminated. No application ping (the spec's terminal protocol has none: clients would print it). A plain HTTP
 * GET answers 426. The origin policy (origin-policy.ts) refuses foreign upgrades before this route runs.
 */
import type { FastifyBaseLogger, FastifyPluginAsync } from "fastify";
import type { WebSocket } from "ws";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { PtySession } from "../adapters/terminal/pty-session.ts";
import { resolveTerminalLaunch, type TerminalLaunchResult } from "../adapters/terminal/terminal-launch.ts";
import type { EditorTerminalSetup } from "../adapters/terminal/terminal-types.ts";
import {
  parseTerminalClientMessage,
  parseTerminalRequest,
  TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES,
  TERMINAL_DEFAULT_COLS,
  TERMINAL_DEFAULT_ROWS,
  terminalSocket,
  type TerminalClientMessage,
  type TerminalRequest,
  type TerminalServerMessage,
} from "../domain/contract/terminal-socket.ts";
import { typed } from "./contract.ts";
import { answerUpgradeRequired, CLOSE_MESSAGE_TOO_BIG, HEARTBEAT_INTERVAL_MS, readClientFrame, startHeartbeat } from "./socket-frames.ts";

/** Unsent socket bytes past which the PTY is paused. */
export const OUTPUT_HIGH_WATER_BYTES = 1024 * 1024;
/** Unsent socket bytes under which a paused PTY resumes. */
export const OUTPUT_LOW_WATER_BYTES = 256 * 1024;
/** Client messages that may wait for the PTY to start, in bytes. */
const QUEUED_INPUT_LIMIT_BYTES = TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES * 16;
const CLOSE_NORMAL = 1000;

export interface TerminalRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
  /** The environment terminals start with. */
  readonly env: NodeJS.ProcessEnv;
  /** Prepares an editor terminal (adapters/file-links/editor-terminal.ts); without it editor requests fail. */
  readonly editorTerminal?: EditorTerminalSetup;
  /** WebSocket ping period. Default HEARTBEAT_INTERVAL_MS (30 s). */
  readonly heartbeatMs?: number;
  /** How long a closed terminal's processes may take to act on SIGHUP before SIGKILL. Default 1000 ms. */
  readonly killGraceMs?: number;
}

/** The terminals alive, so that closing the app ends them. */
class TerminalRegistry {
  private readonly sessions = new Set<PtySession>();
  private readonly endings = new Set<Promise<unknown>>();

  constructor(private readonly log: FastifyBaseLogger) {}

  add(session: PtySession): void {
    this.sessions.add(session);
  }

  /** Ends a terminal (once), logging what it took. */
  end(session: PtySession): void {
    if (!this.sessions.delete(session)) return;
    const ending = session
      .end()
      .then((ended) => this.log.debug({ pid: session.pid, ...ended }, "terminal ended"))
      .catch((error: unknown) => this.log.error({ err: error, pid: session.pid }, "terminal: ending its processes failed"));
    this.endings.add(ending);
    void ending.finally(() => this.endings.delete(ending));
  }

  async close(): Promise<void> {
    for (const session of [...this.sessions]) this.end(session);
    await Promise.all([...this.endings]);
  }
}

interface ConnectionDeps {
  readonly options: TerminalRoutesOptions;
  readonly registry: TerminalRegistry;
  readonly log: FastifyBaseLogger;
}

/** Serves one connection until it closes (see the module comment). */
function serveTerminal(socket: WebSocket, request: TerminalRequest, deps: ConnectionDeps): void {
  const { options, registry, log } = deps;
  let session: PtySession | null = null;
  let closed = false;
  const waiting: TerminalClientMessage[] = [];
  let waitingBytes = 0;

  const send = (message: TerminalServerMessage, sent?: () => void): void => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(message), sent);
  };
  const fail = (message: string): void => {
    send({ type: "error", message });
    socket.close(CLOSE_NORMAL);
  };
  const apply = (current: PtySession, message: TerminalClientMessage): void => {
    if (message.type === "input") current.write(message.data);
    else current.resize(message.cols, message.rows);
  };

  const heartbeat = startHeartbeat(socket, options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS, () => socket.ping());
  socket.on("pong", () => heartbeat.answered());

  socket.on("message", (data: unknown, isBinary: boolean) => {
    const frame = readClientFrame(socket, data, isBinary, TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES);
    const message = frame === null ? null : parseTerminalClientMessage(frame.text);
    if (frame === null || message === null) return;
    if (session !== null) {
      apply(session, message);
      return;
    }
    waitingBytes += frame.bytes;
    if (waitingBytes > QUEUED_INPUT_LIMIT_BYTES) socket.close(CLOSE_MESSAGE_TOO_BIG, "Too much input before the terminal started");
    else waiting.push(message);
  });

  socket.on("close", () => {
    closed = true;
    heartbeat.stop();
    if (session !== null) registry.end(session);
  });

  const drained = (): void => {
    if (session?.isPaused === true && socket.bufferedAmount <= OUTPUT_LOW_WATER_BYTES) session.resume();
  };

  const start = (result: TerminalLaunchResult): void => {
    if (closed) return;
    if (!result.ok) {
      fail(result.message);
      return;
    }
    const { launch } = result;
    const lastResize = waiting.findLast((message) => message.type === "resize");
    const current = PtySession.start(
      {
        file: launch.file,
        args: launch.args,
        cwd: launch.cwd,
        env: launch.env,
        cols: lastResize?.cols ?? TERMINAL_DEFAULT_COLS,
        rows: lastResize?.rows ?? TERMINAL_DEFAULT_ROWS,
      },
      {
        onOutput: (text) => {
          send({ type: "data", data: text }, drained);
          if (socket.bufferedAmount > OUTPUT_HIGH_WATER_BYTES) current.pause();
        },
        onExit: (exitCode) => {
          send({ type: "exit", exitCode });
          socket.close(CLOSE_NORMAL);
          // Background jobs the program left behind end with the terminal.
          registry.end(current);
        },
      },
      options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {},
    );
    session = current;
    registry.add(current);
    log.debug({ pid: current.pid, cwd: launch.cwd, file: launch.file }, "terminal started");
    send({
      type: "ready",
      cwd: launch.cwd,
      shell: launch.shell,
      ...(launch.editorPath !== undefined ? { editorPath: launch.editorPath } : {}),
      pty: true,
    });
    for (const message of waiting.splice(0)) if (message.type === "input") apply(current, message);
  };

  resolveTerminalLaunch(options, request).then(
    (result) => {
      try {
        start(result);
      } catch (error) {
        // node-pty could not open a PTY or fork (file descriptors or processes exhausted).
        log.error({ err: error }, "terminal: PTY start failed");
        fail(`Could not start the terminal: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    (error: unknown) => {
      log.error({ err: error }, "terminal: could not resolve what to start");
      if (!closed) fail("Could not start the terminal");
    },
  );
}

export const terminalRoutes: FastifyPluginAsync<TerminalRoutesOptions> = async (app, options) => {
  const registry = new TerminalRegistry(app.log);
  app.addHook("onClose", async () => registry.close());
  typed(app).route({
    method: "GET",
    url: terminalSocket.url,
    schema: terminalSocket.schema,
    handler: async (_request, reply) => answerUpgradeRequired(reply),
    wsHandler: (socket, request) => serveTerminal(socket, parseTerminalRequest(request.query), { options, registry, log: request.log }),
  });
};
