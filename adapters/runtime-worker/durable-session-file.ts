/**
 * An accepted prompt is durable. pi's `SessionManager._persist` writes a new session's file only with the
 * first assistant message (header and every entry at once), so a worker or server killed during the first
 * reply loses the session and the prompt. It also resets its `flushed` flag on every entry appended while the
 * file holds no assistant message, which makes a resumed assistant-less file get its header and entries
 * written a second time.
 *
 * `makeSessionFileDurable` replaces `_persist` on one SessionManager (its only writer of appended entries;
 * `_rewriteFile` for migrations and forks stays pi's) with the same writes under one different rule: the file
 * is created as soon as the session holds a user (or assistant) message, i.e. when the user message is
 * appended, with the bytes pi would write (`JSON.stringify(entry) + "\n"` for the header and every entry, in
 * order); once the file exists, each entry is appended alone. Sessions without a conversation still create no
 * file. `flushed` is no longer read, so nothing is ever written twice, and the file stays one pi resumes.
 *
 * `persisted(message)` resolves once a message entry holding exactly that message object is on disk: the
 * worker holds pi's agent loop on the user message's `message_end` until then, so the file exists before the
 * model call starts (pi persists from an event queue the loop does not wait for).
 */
import * as fs from "node:fs";
import type { SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent";

export interface DurableSessionFile {
  /** Resolves true once `message` was written, false after `timeoutMs` (or at once for an in-memory session). */
  persisted(message: object, timeoutMs: number): Promise<boolean>;
}

const installed = new WeakMap<SessionManager, DurableSessionFile>();

function lines(entries: readonly object[]): string {
  return entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
}

function isConversation(entry: SessionEntry): boolean {
  return entry.type === "message" && (entry.message.role === "user" || entry.message.role === "assistant");
}

/** Installs the durable write rule on `manager` (idempotent) and returns its `persisted` waiter. */
export function makeSessionFileDurable(manager: SessionManager): DurableSessionFile {
  const existing = installed.get(manager);
  if (existing) return existing;
  // Files known to be on disk (seen, or created here): an entry for one of them is appended even if the file
  // was removed meanwhile, as pi does, so a deleted session is not recreated whole.
  const onDisk = new Set<string>();
  const written = new WeakSet<object>();
  const waiters = new Map<object, Array<(ok: boolean) => void>>();
  const known = (file: string): boolean => {
    if (onDisk.has(file)) return true;
    if (!fs.existsSync(file)) return false;
    onDisk.add(file);
    return true;
  };
  const startFile = manager.getSessionFile();
  if (startFile !== undefined) known(startFile);

  manager._persist = (entry: SessionEntry): void => {
    const file = manager.getSessionFile();
    if (!manager.isPersisted() || file === undefined) return;
    if (known(file)) {
      fs.appendFileSync(file, lines([entry]));
    } else {
      const entries = manager.getEntries();
      if (!entries.some(isConversation)) return; // no conversation yet: no file, as in pi
      const header = manager.getHeader();
      fs.appendFileSync(file, lines(header ? [header, ...entries] : entries));
      onDisk.add(file);
    }
    if (entry.type === "message") {
      written.add(entry.message);
      const pending = waiters.get(entry.message);
      waiters.delete(entry.message);
      for (const resolve of pending ?? []) resolve(true);
    }
  };

  const durable: DurableSessionFile = {
    persisted(message, timeoutMs) {
      if (!manager.isPersisted() || written.has(message)) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          const list = waiters.get(message) ?? [];
          const index = list.indexOf(finish);
          if (index !== -1) list.splice(index, 1);
          if (list.length === 0) waiters.delete(message);
          resolve(false);
        }, timeoutMs);
        const finish = (ok: boolean): void => {
          clearTimeout(timer);
          resolve(ok);
        };
        waiters.set(message, [...(waiters.get(message) ?? []), finish]);
      });
    },
  };
  installed.set(manager, durable);
  return durable;
}
