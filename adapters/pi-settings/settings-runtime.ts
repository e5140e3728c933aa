/**
 * The settings runtime: the pi `ModelRuntime` Pi Settings reads providers, models, authentication state and
 * the catalog from, and signs in and tests with. It is separate from every conversation runtime (those live in
 * workers): saving or signing in here never aborts, reloads or re-catalogs a live session (spec "Provider
 * authentication, catalog, and connection tests").
 *
 * - One runtime per agent dir, built in this process on first use (pi is imported lazily: ~30 ms to build).
 *   It is rebuilt when what it was built from changed (the bytes of models.json, auth.json's size and time),
 *   and on `refresh` (spec `refresh=1`).
 * - The catalog runtime: a second one built from pi's built-in providers only (no models.json), once; it tells
 *   catalog models (and their catalog costs) from models.json definitions.
 * - Building writes nothing: pi's auth.json and models-store.json backend is made create-on-write first
 *   (adapters/runtime-worker/agent-files-on-write.ts); credentials are written only by a sign-in or sign-out.
 *
 * Departure (noted in the README): pi extensions are not loaded into the settings runtime. Extensions run in
 * worker processes, never in the server, so providers an extension registers are not listed here (kind
 * "extension" never occurs); the target's cwd only selects the folder a test runs in.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { ServiceError } from "../../domain/service-error.ts";
import { installCreateOnWriteAgentFiles } from "../runtime-worker/agent-files-on-write.ts";
import { applyKeylessProvidersFromFile } from "./keyless-providers.ts";
import { readSettingsFile } from "./settings-file.ts";

type PiModule = typeof import("@earendil-works/pi-coding-agent");

let piModule: Promise<PiModule> | null = null;

/** pi, imported once, with its credential files made create-on-write. */
export function loadPi(): Promise<PiModule> {
  piModule ??= (async () => {
    await installCreateOnWriteAgentFiles();
    return import("@earendil-works/pi-coding-agent");
  })();
  return piModule;
}

export interface SettingsRuntimes {
  /**
   * The settings runtime for the agent dir's current files (`refresh`: a new one, whatever changed). With
   * `refreshAuth`, a cached runtime first refreshes its authentication snapshot without network (spec: ordinary
   * reads do; credentials can appear outside auth.json: environment, cloud credential files).
   */
  acquire(options?: { refresh?: boolean; refreshAuth?: boolean }): Promise<ModelRuntime>;
  /** A runtime built from a models.json text of the caller's (a connection test draft), with the real credentials. */
  withModelsText<T>(text: string, use: (runtime: ModelRuntime) => Promise<T>): Promise<T>;
  /** pi's built-in providers only: what is "catalog". */
  catalog(): Promise<ModelRuntime>;
}

export function agentFiles(agentDir: string): { models: string; mcp: string; auth: string; mcpAuth: string; modelsStore: string } {
  return {
    models: path.join(agentDir, "models.json"),
    mcp: path.join(agentDir, "mcp.json"),
    auth: path.join(agentDir, "auth.json"),
    mcpAuth: path.join(agentDir, "mcp-auth.json"),
    modelsStore: path.join(agentDir, "models-store.json"),
  };
}

function statKey(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "absent";
  }
}

export function createSettingsRuntimes(agentDir: string): SettingsRuntimes {
  const files = agentFiles(agentDir);
  let current: { key: string; runtime: Promise<ModelRuntime> } | null = null;
  let catalog: Promise<ModelRuntime> | null = null;

  const create = async (modelsPath: string | null): Promise<ModelRuntime> => {
    const pi = await loadPi();
    try {
      return await pi.ModelRuntime.create({
        authPath: files.auth,
        modelsPath,
        modelsStorePath: files.modelsStore,
        allowModelNetwork: false,
      });
    } catch (error) {
      throw new ServiceError("settings_unavailable", `The settings runtime could not load: ${(error as Error).message}`, { cause: error });
    }
  };
  const catalogRuntime = (): Promise<ModelRuntime> => {
    catalog ??= create(null);
    catalog.catch(() => (catalog = null));
    return catalog;
  };
  /** A runtime over a models.json, with its keyless custom providers usable (keyless-providers.ts). */
  const build = async (modelsPath: string): Promise<ModelRuntime> => {
    const [runtime, builtins] = await Promise.all([create(modelsPath), catalogRuntime()]);
    const builtinIds = new Set(builtins.getProviders().map((provider) => provider.id));
    await applyKeylessProvidersFromFile(runtime, modelsPath, builtinIds);
    return runtime;
  };

  const fingerprint = (): string => `${readSettingsFile(files.models).revision}|${statKey(files.auth)}`;

  return {
    async acquire(options = {}) {
      const key = fingerprint();
      if (current === null || current.key !== key || options.refresh === true) {
        const runtime = build(files.models);
        current = { key, runtime };
        // A failed build is not kept: the next request tries again.
        runtime.catch(() => {
          if (current?.runtime === runtime) current = null;
        });
        return runtime;
      }
      const runtime = await current.runtime;
      if (options.refreshAuth === true) await runtime.refresh({ allowNetwork: false }).catch(() => undefined);
      return runtime;
    },
    async withModelsText(text, use) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-settings-test-"));
      try {
        fs.chmodSync(dir, 0o700);
        const modelsPath = path.join(dir, "models.json");
        fs.writeFileSync(modelsPath, text, { mode: 0o600 });
        const runtime = await build(modelsPath);
        return await use(runtime);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    catalog: catalogRuntime,
  };
}
