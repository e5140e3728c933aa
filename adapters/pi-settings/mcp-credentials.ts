/**
 * pi's MCP credential file, `<agentDir>/mcp-auth.json`, read and written as pi's McpOAuthCredentialStore does, so
 * pi and Leyline share one sign-in (spec "MCP actions").
 *
 * Records are keyed `mcp__<name>|<url>`; older pi versions keyed them by the URL alone, and the first server to
 * load such a legacy record takes it over. Every read-change-write happens under proper-lockfile's lock of the file,
 * and token refreshes under pi's per-server refresh lock files (`mcp-auth-refresh-<hash>`), so pi and Leyline never
 * write the file or refresh a server's tokens at once. The file is created (mode 0600, in a 0700 directory) only
 * when something is saved.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { mcpNamespace } from "@earendil-works/pi-mcp";
import { type McpOAuthServerStore, type McpOAuthState, McpRefreshLockBusyError } from "@earendil-works/pi-mcp/oauth";
import lockfile from "proper-lockfile";

const FILE_LOCK = { stale: 10_000, retries: { retries: 40, minTimeout: 25, maxTimeout: 250 } } as const;
const REFRESH_LOCK_STALE_MS = 20_000;
const REFRESH_LOCK_WAIT_MS = 25_000;
const REFRESH_LOCK_RETRY_MS = 100;

type States = Record<string, unknown>;

/** `<agentDir>/mcp-auth.json` as pi's McpOAuthCredentialStore reads and writes it (same keys, same locks). */
export class McpCredentialFile {
  readonly file: string;

  constructor(private readonly agentDir: string) {
    this.file = path.join(agentDir, "mcp-auth.json");
  }

  /** The keys of a server's record: by name and URL, and the URL alone as older pi versions wrote it. */
  static keys(name: string, serverUrl: string): { key: string; legacyKey: string } {
    const legacyKey = String(new URL(serverUrl));
    return { key: `${mcpNamespace(name)}|${legacyKey}`, legacyKey };
  }

  forServer(name: string, serverUrl: string): McpOAuthServerStore {
    const { key, legacyKey } = McpCredentialFile.keys(name, serverUrl);
    return {
      // The first server to load legacy state takes it over, as in pi.
      load: () =>
        this.update<McpOAuthState | undefined>(false, (states) => {
          if (states[key] !== undefined || states[legacyKey] === undefined) return { result: states[key] as McpOAuthState | undefined };
          states[key] = states[legacyKey];
          delete states[legacyKey];
          return { result: states[key] as McpOAuthState, write: true };
        }),
      save: (state) =>
        this.update(true, (states) => {
          states[key] = state;
          return { result: undefined, write: true };
        }),
      withRefreshLock: (fn) => this.withRefreshLock(key, fn),
    };
  }

  /** Removes a server's record (or the legacy one it would take over); whether there was one. */
  remove(name: string, serverUrl: string): Promise<boolean> {
    const { key, legacyKey } = McpCredentialFile.keys(name, serverUrl);
    return this.update(false, (states) => {
      const stored = key in states ? key : legacyKey in states ? legacyKey : undefined;
      if (stored === undefined) return { result: false };
      delete states[stored];
      return { result: true, write: true };
    });
  }

  /** Reads, changes and writes the file under its lock; a missing file is read as empty and created only when `create`. */
  private async update<T>(create: boolean, change: (states: States) => { result: T; write?: boolean }): Promise<T> {
    if (!fs.existsSync(this.file)) {
      if (!create) return change({}).result;
      fs.mkdirSync(this.agentDir, { recursive: true, mode: 0o700 });
      try {
        fs.writeFileSync(this.file, "{}", { encoding: "utf8", mode: 0o600, flag: "wx" });
      } catch (error) {
        // Created meanwhile (pi, another operation): take the lock on that file.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    const release = await lockfile.lock(this.file, FILE_LOCK);
    try {
      const text = fs.readFileSync(this.file, "utf8");
      let parsed: unknown = {};
      try {
        parsed = text.trim() === "" ? {} : JSON.parse(text);
      } catch {
        throw new Error("mcp-auth.json is not valid JSON; fix or remove it.");
      }
      const states: States = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as States) : {};
      const { result, write } = change(states);
      if (write) fs.writeFileSync(this.file, `${JSON.stringify(states, null, 2)}\n`, { encoding: "utf8", mode: 0o600 });
      return result;
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** pi's per-server refresh lock file (`mcp-auth-refresh-<hash>`), so pi and Leyline never refresh at once. */
  private async withRefreshLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    fs.mkdirSync(this.agentDir, { recursive: true, mode: 0o700 });
    const hash = createHash("sha256").update(key).digest("hex").slice(0, 16);
    const release = await lockfile
      .lock(path.join(this.agentDir, `mcp-auth-refresh-${hash}`), {
        realpath: false,
        stale: REFRESH_LOCK_STALE_MS,
        retries: {
          retries: REFRESH_LOCK_WAIT_MS / REFRESH_LOCK_RETRY_MS,
          factor: 1,
          minTimeout: REFRESH_LOCK_RETRY_MS,
          maxTimeout: REFRESH_LOCK_RETRY_MS,
        },
        onCompromised: () => undefined,
      })
      .catch((error: unknown) => {
        if (error instanceof Error && "code" in error && error.code === "ELOCKED") throw new McpRefreshLockBusyError();
        throw error;
      });
    try {
      return await fn();
    } finally {
      await release().catch(() => undefined);
    }
  }
}
