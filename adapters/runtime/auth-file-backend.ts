/**
 * pi's auth.json storage, created only when something is written to it.
 *
 * Why: pi's `FileAuthStorageBackend` creates `<agentDir>/auth.json` (`{}`) on every read, so merely starting a
 * runtime (a state preview for the start screen, a model list) wrote into a person's agent dir that had none.
 * Viewing writes nothing: this backend reads a missing file as "no credentials" and hands the first real write
 * (a login, a key saved by an extension) to pi's own backend, which creates the file with its lock and mode.
 */
import * as fs from "node:fs";
import type { AuthStorageBackend } from "@earendil-works/pi-coding-agent";

type LockResult<T> = { result: T; next?: string };

/** `inner` is pi's file backend for `authPath` (`new pi.FileAuthStorageBackend(authPath)`). */
export function createOnWriteAuthBackend(authPath: string, inner: AuthStorageBackend): AuthStorageBackend {
  return {
    withLock<T>(fn: (current: string | undefined) => LockResult<T>): T {
      if (fs.existsSync(authPath)) return inner.withLock(fn);
      const first = fn(undefined);
      if (first.next === undefined) return first.result;
      // A write: pi's backend creates the file under its lock; recompute in case it appeared meanwhile.
      return inner.withLock((current) => (current === undefined || current === "{}" ? first : fn(current)));
    },
    async withLockAsync<T>(fn: (current: string | undefined) => Promise<LockResult<T>>): Promise<T> {
      if (fs.existsSync(authPath)) return inner.withLockAsync(fn);
      const first = await fn(undefined);
      if (first.next === undefined) return first.result;
      return inner.withLockAsync(async (current) => (current === undefined || current === "{}" ? first : fn(current)));
    },
  };
}
