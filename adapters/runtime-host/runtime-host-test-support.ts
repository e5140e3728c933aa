/**
 * Test support for the runtime host: a recorder of host events with `until` (re-checks a condition on every
 * host event; no sleeps), and helpers to read session files.
 */
import * as fs from "node:fs";
import type { HostEvent } from "./runtime-handle.ts";
import type { RuntimeHost } from "./runtime-host.ts";

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
        .map((event) => ((event.data(true) as { event: { type: string } }).event.type)),
    until(condition, label = condition.toString().slice(0, 160), timeoutMs = 30_000) {
      if (condition()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.findIndex((waiter) => waiter.condition === condition), 1);
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

/** "role:text" of every message entry of a session file. */
export function messageTexts(file: string): string[] {
  return jsonlLines(file)
    .filter((line) => line["type"] === "message")
    .map((line) => line["message"] as { role: string; content: unknown })
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
