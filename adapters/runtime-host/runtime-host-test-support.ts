/**
 * Test support for the runtime host: temp dirs shared with in-process workers through PI_CODING_AGENT_DIR, a
 * recorder of host events with `until` (re-checks a condition on every host event; no sleeps), and helpers to
 * read session files.
 */
import * as fs from "node:fs";
import type { HostEvent } from "./runtime-handle.ts";
import type { RuntimeHost } from "./runtime-host.ts";

export interface AgentDirEnv<T extends object> {
  /** The dirs made by `setUp` (a live view: reading it before `setUp` or after `tearDown` throws). */
  readonly dirs: T;
  /** Creates the dirs and points PI_CODING_AGENT_DIR at them (in-process workers share this process's env). */
  readonly setUp: () => void;
  /** Restores PI_CODING_AGENT_DIR and removes the dirs. */
  readonly tearDown: () => void;
}

/** Temp dirs for in-process workers; call `setUp` in `beforeAll` and `tearDown` in `afterAll`. */
export function agentDirEnv<T extends { agentDir: string; cleanup(): void }>(create: () => T): AgentDirEnv<T> {
  let current: T | null = null;
  let previousAgentDir: string | undefined;
  const live = (): T => {
    if (current === null) throw new Error("agentDirEnv: dirs used outside setUp/tearDown");
    return current;
  };
  const dirs = new Proxy({} as T, { get: (_target, key) => Reflect.get(live(), key) });
  return {
    dirs,
    setUp: () => {
      current = create();
      previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
      process.env["PI_CODING_AGENT_DIR"] = current.agentDir;
    },
    tearDown: () => {
      if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
      else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
      live().cleanup();
      current = null;
    },
  };
}

export interface HostRecorder {
  readonly all: HostEvent[];
  types(): string[];
  /** pi event types of `runtime_event`s for a session, in order. */
  runtimeEvents(sessionId: string): string[];
  /** Resolves once `condition()` is true (checked now and after every host event). */
  until(condition: () => boolean, label?: string, timeoutMs?: number): Promise<void>;
  stop(): void;
}

export function recordHost(host: RuntimeHost): HostRecorder {
  const all: HostEvent[] = [];
  const waiters: Array<{ condition: () => boolean; resolve: () => void }> = [];
  const check = (): void => {
    for (const waiter of [...waiters]) {
      if (waiter.condition()) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const subscription = host.events$.subscribe((event) => {
    all.push(event);
    check();
  });
  return {
    all,
    types: () => all.map((event) => event.type),
    runtimeEvents: (sessionId) =>
      all
        .filter((event) => event.type === "runtime_event" && event.sessionId === sessionId)
        .map((event) => (event.data(true) as { event: { type: string } }).event.type),
    until(condition, label = condition.toString().slice(0, 160), timeoutMs = 30_000) {
      if (condition()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(
            waiters.findIndex((waiter) => waiter.condition === condition),
            1,
          );
          reject(new Error(`timed out waiting for: ${label}`));
        }, timeoutMs);
        waiters.push({
          condition,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    stop: () => subscription.unsubscribe(),
  };
}

export function jsonlLines(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * "role:text" of every conversation message of a session file: user, assistant and tool results. System
 * messages (pi 1.x stores the prompt and tools it sent, then patches) are left out.
 */
export function messageTexts(file: string): string[] {
  return jsonlLines(file)
    .filter((line) => line["type"] === "message")
    .map((line) => line["message"] as { role: string; content: unknown })
    .filter((message) => message.role !== "system")
    .map((message) => {
      const content = message.content;
      const text =
        typeof content === "string"
          ? content
          : Array.isArray(content)
            ? content.map((block: { type?: string; text?: string }) => (block.type === "text" ? (block.text ?? "") : "")).join("")
            : "";
      return `${message.role}:${text}`;
    });
}

/** True when a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
