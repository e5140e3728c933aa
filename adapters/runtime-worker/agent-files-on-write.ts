/**
 * pi's agent-dir JSON files (auth.json, models-store.json) created only when something is written to them.
 *
 * Why: pi's `FileAuthStorageBackend` (pi-coding-agent dist/core/auth-storage.js) creates its file (`{}`) before
 * every locked read, and pi 1.x reads through it at start-up: the credential store (auth.json) and the model
 * catalog cache (models-store.json). Merely starting a runtime (a state preview for the start screen, a model
 * list) would write into a person's agent dir that had neither. Viewing writes nothing: with the backend made
 * create-on-write, a missing file reads as empty and the first real write (a login, a key saved by an
 * extension, a refreshed catalog) goes through pi's own locked path, which creates the file with its mode.
 *
 * pi 1.x no longer exports the backend, so it is loaded from the file its package entry imports (the same
 * module instance pi uses); `loadPiFileBackend` fails loudly when a pi release moves it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type LockResult<T> = { result: T; next?: string };

/** The shape of pi's FileAuthStorageBackend that this module relies on. */
export interface PiFileBackend {
  readonly authPath: string;
  withLock<T>(fn: (current: string | undefined) => LockResult<T>): T;
  withLockAsync<T>(fn: (current: string | undefined) => Promise<LockResult<T>>, options?: unknown): Promise<T>;
}

export interface PiFileBackendClass {
  new (authPath?: string): PiFileBackend;
  prototype: PiFileBackend;
}

const PATCHED = Symbol.for("leyline.createOnWrite");

/** pi's FileAuthStorageBackend class, from pi-coding-agent's own module file. */
export async function loadPiFileBackend(): Promise<PiFileBackendClass> {
  const entry = fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent"));
  const file = path.join(path.dirname(entry), "core", "auth-storage.js");
  const loaded = (await import(pathToFileURL(file).href)) as { FileAuthStorageBackend?: PiFileBackendClass };
  const backend = loaded.FileAuthStorageBackend;
  if (
    typeof backend !== "function" ||
    typeof backend.prototype.withLock !== "function" ||
    typeof backend.prototype.withLockAsync !== "function"
  ) {
    throw new Error(`pi's FileAuthStorageBackend was not found in ${file}: this pi version is not supported`);
  }
  return backend;
}

/**
 * Makes every instance of pi's file backend create its file on the first write only (idempotent). A read of a
 * missing file sees `undefined` (pi parses it as `{}`); a write creates the file through pi's backend, under its
 * lock, recomputing when another process created it meanwhile.
 */
export function makeFileBackendCreateOnWrite(Backend: PiFileBackendClass): void {
  const proto = Backend.prototype as PiFileBackend & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  const withLock = proto.withLock;
  const withLockAsync = proto.withLockAsync;
  proto.withLock = function <T>(this: PiFileBackend, fn: (current: string | undefined) => LockResult<T>): T {
    if (fs.existsSync(this.authPath)) return withLock.call(this, fn) as T;
    const first = fn(undefined);
    if (first.next === undefined) return first.result;
    return withLock.call(this, (current: string | undefined) => (current === undefined || current === "{}" ? first : fn(current))) as T;
  };
  proto.withLockAsync = async function <T>(
    this: PiFileBackend,
    fn: (current: string | undefined) => Promise<LockResult<T>>,
    options?: unknown,
  ): Promise<T> {
    if (fs.existsSync(this.authPath)) return withLockAsync.call(this, fn, options) as Promise<T>;
    const first = await fn(undefined);
    if (first.next === undefined) return first.result;
    return withLockAsync.call(
      this,
      async (current: string | undefined) => (current === undefined || current === "{}" ? first : fn(current)),
      options,
    ) as Promise<T>;
  };
  proto[PATCHED] = true;
}

/** Loads pi's file backend and makes it create-on-write: call once per process before pi reads the agent dir. */
export async function installCreateOnWriteAgentFiles(): Promise<void> {
  makeFileBackendCreateOnWrite(await loadPiFileBackend());
}
