/**
 * Another process writing pi sessions, as the pi CLI does: a child process (started with `startPiSessionWriter`)
 * that creates sessions and appends turns through pi's own `SessionManager`, on command over IPC. Tests and
 * benchmarks use it to check that Leyline follows files it does not write itself.
 *
 * Each command answers with `at`: the writer's monotonic clock (ms, `process.hrtime`: CLOCK_MONOTONIC, one clock
 * for every process of the machine) just before pi appended, so a reader can time how long the change took to
 * reach it; and `wallMs`, the wall clock then (for readers on another clock, such as a browser page).
 *
 * pi writes a new session's file only once it has an assistant message, so `create` appends a user message and a
 * reply; `append` adds a user message and a reply to an existing file.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

type WriterRequest =
  | { readonly type: "create"; readonly cwd: string; readonly sessionDir: string; readonly text: string }
  | { readonly type: "append"; readonly file: string; readonly text: string };

export type WriterCommand = WriterRequest & { readonly id: number };

export type WriterReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly at: number;
      readonly wallMs: number;
      readonly file: string;
      readonly sessionId: string;
    }
  | { readonly id: number; readonly ok: false; readonly error: string };

const IS_CHILD_ENV = "LEYLINE_PI_SESSION_WRITER";

export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface WrittenTurn {
  readonly at: number;
  readonly wallMs: number;
  readonly file: string;
  readonly sessionId: string;
}

export interface PiSessionWriter {
  /** Creates a session in `cwd` (its file in `sessionDir`) with one turn. */
  create(cwd: string, sessionDir: string, text: string): Promise<WrittenTurn>;
  /** Appends one turn (user message and reply) to a session file. */
  append(file: string, text: string): Promise<WrittenTurn>;
  close(): Promise<void>;
}

/** Starts the writer process (PI_CODING_AGENT_DIR from `env`). */
export function startPiSessionWriter(env: NodeJS.ProcessEnv = process.env): PiSessionWriter {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    env: { ...env, [IS_CHILD_ENV]: "1", PI_OFFLINE: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (reply: WriterReply) => void }>();
  child.on("message", (reply: WriterReply) => {
    waiting.get(reply.id)?.resolve(reply);
    waiting.delete(reply.id);
  });
  const send = async (command: WriterRequest): Promise<WrittenTurn> => {
    const id = ++next;
    const reply = await new Promise<WriterReply>((resolve) => {
      waiting.set(id, { resolve });
      child.send({ ...command, id });
    });
    if (!reply.ok) throw new Error(`pi session writer: ${reply.error}`);
    return { at: reply.at, wallMs: reply.wallMs, file: reply.file, sessionId: reply.sessionId };
  };
  return {
    create: (cwd, sessionDir, text) => send({ type: "create", cwd, sessionDir, text }),
    append: (file, text) => send({ type: "append", file, text }),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function runChild(): Promise<void> {
  const pi = await import("@earendil-works/pi-coding-agent");
  type Manager = import("@earendil-works/pi-coding-agent").SessionManager;
  const managers = new Map<string, Manager>();
  const usage = {
    input: 10,
    output: 5,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 15,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const turn = (manager: Manager, text: string): { at: number; wallMs: number } => {
    const at = monotonicMs();
    const now = Date.now();
    manager.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: now });
    manager.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: `Reply to: ${text}` }],
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage,
      stopReason: "stop",
      timestamp: now + 1,
    });
    return { at, wallMs: now };
  };
  process.on("message", (command: WriterCommand) => {
    try {
      if (command.type === "create") {
        const manager = pi.SessionManager.create(command.cwd, command.sessionDir);
        const { at, wallMs } = turn(manager, command.text);
        const file = manager.getSessionFile();
        if (file === undefined) throw new Error("pi did not name a session file");
        managers.set(file, manager);
        process.send?.({ id: command.id, ok: true, at, wallMs, file, sessionId: manager.getSessionId() } satisfies WriterReply);
        return;
      }
      let manager = managers.get(command.file);
      if (manager === undefined) {
        manager = pi.SessionManager.open(command.file);
        managers.set(command.file, manager);
      }
      const { at, wallMs } = turn(manager, command.text);
      process.send?.({ id: command.id, ok: true, at, wallMs, file: command.file, sessionId: manager.getSessionId() } satisfies WriterReply);
    } catch (error) {
      process.send?.({ id: command.id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies WriterReply);
    }
  });
  process.on("disconnect", () => process.exit(0));
}

if (process.env[IS_CHILD_ENV] === "1") void runChild();
