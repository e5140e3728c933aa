/**
 * Pi Settings as one service (the routes in api/pi-settings.routes.ts are thin over it): targets, the provider
 * inventory and catalog, provider and model edits of models.json, MCP edits of mcp.json, provider and MCP
 * actions as private polled operations.
 *
 * Data flow: a read takes the file (settings-file.ts: bytes and revision), parses it (domain/pi-settings/
 * jsonc-document.ts), and projects it with the settings runtime (provider-inventory.ts) or purely
 * (mcp-config.ts). A write is a pure edit of the text (models-config.ts, mcp-config.ts) that the file adapter
 * applies under its revision checks, lock and atomic replacement; the answer is the inventory read again.
 * Every answer passes through `scrub` (known-secrets.ts) before it leaves.
 */
import * as path from "node:path";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import type {
  CatalogResult,
  ModelValues,
  ProviderInventory,
  ProviderValues,
  SettingsOperation,
  SettingsTarget,
} from "../../domain/contract/http-pi-settings.ts";
import { parseJsoncDocument } from "../../domain/pi-settings/jsonc-document.ts";
import {
  type CatalogView,
  deleteModel,
  deleteProvider,
  editModel,
  editProvider,
  type ModelsEditResult,
} from "../../domain/pi-settings/models-config.ts";
import { redactSecrets, redactStrings } from "../../domain/pi-settings/redaction.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { HostClock } from "../runtime-host/host-clock.ts";
import { leylineTrashDirOf } from "../session-files/agent-dir.ts";
import { knownSecrets } from "./known-secrets.ts";
import { createMcpSettings, type McpSettings } from "./mcp-settings.ts";
import { withScrubbedErrors } from "./scrubbed-errors.ts";
import {
  loginProvider,
  logoutProvider,
  probeModel,
  ProviderLock,
  refreshProvider,
  routeConflict,
  type RuntimeRoute,
  type TestDraft,
} from "./provider-actions.ts";
import { customModelIds, modelsJsonProviders } from "../../domain/pi-settings/models-json.ts";
import { providerInventory, searchCatalog } from "./provider-inventory.ts";
import { readSettingsFile, writeSettingsFile, checkRevision, type SettingsFileState } from "./settings-file.ts";
import { createSettingsOperations, type OperationContext, type SettingsOperations } from "./settings-operations.ts";
import { agentFiles, createSettingsRuntimes, type SettingsRuntimes } from "./settings-runtime.ts";

export const CATALOG_REFRESH_WARNING = "The catalog could not be fully refreshed. Results come from the cached catalog.";
/** A catalog lookup with refresh=1 waits at most this long for the network; then it answers from the cache. */
const CATALOG_REFRESH_TIMEOUT_MS = 30_000;

/** What the service needs to know of the open conversation runtimes. */
export interface OpenRuntimesView {
  /** The folder of an open session, or null (an unknown id activates nothing). */
  cwdOfSession(sessionId: string): string | null;
  /** The model routes of open, background and constructing runtimes (for the sign-in route guard). */
  routes(): readonly RuntimeRoute[];
}

export interface PiSettingsOptions {
  readonly agentDir: string;
  readonly clock: HostClock;
  readonly openRuntimes: OpenRuntimesView;
  /** The backend's process directory (targets without a folder; the MCP probe's cwd). */
  readonly processCwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface TargetInput {
  readonly sessionId?: string | undefined;
  readonly cwd?: string | undefined;
}

export type ProviderActionInput = {
  target?: SettingsTarget;
  providerId: string;
  action: "login" | "logout" | "refresh" | "test";
  authType?: "api_key" | "oauth";
  modelId?: string;
  draft?: TestDraft;
};

/** The MCP members come from mcp-settings.ts. */
export interface PiSettingsService extends McpSettings {
  providers(query: TargetInput & { refresh?: boolean }): Promise<ProviderInventory>;
  catalog(query: TargetInput & { q?: string; refresh?: boolean }): Promise<CatalogResult>;
  saveProvider(body: {
    target?: SettingsTarget;
    id: string;
    revision?: string | null;
    create?: boolean;
    values: ProviderValues;
  }): Promise<ProviderInventory>;
  deleteProvider(body: { target?: SettingsTarget; id: string; revision?: string | null }): Promise<ProviderInventory>;
  saveModel(body: {
    target?: SettingsTarget;
    providerId: string;
    modelId: string;
    revision?: string | null;
    kind: "custom" | "override";
    create?: boolean;
    values: ModelValues;
  }): Promise<ProviderInventory>;
  deleteModel(body: {
    target?: SettingsTarget;
    providerId: string;
    modelId: string;
    revision?: string | null;
    kind: "custom" | "override";
  }): Promise<ProviderInventory>;
  providerAction(body: ProviderActionInput): Promise<SettingsOperation>;
  operation(id: string): SettingsOperation;
  answer(id: string, body: { promptId: string; value: string }): SettingsOperation;
  cancel(id: string): SettingsOperation;
  /** Redacts every known secret from a text (log lines). */
  scrubText(text: string): string;
  close(): Promise<void>;
}

function editOutcome(result: ModelsEditResult): string {
  if (!result.ok) throw new ServiceError(result.code, result.message);
  return result.text;
}

export function createPiSettingsService(options: PiSettingsOptions): PiSettingsService {
  const { agentDir, clock, openRuntimes } = options;
  // Secrets of both: pi reads process.env; the app may add its own environment.
  const env = { ...process.env, ...options.env };
  const processCwd = options.processCwd ?? process.cwd();
  const files = agentFiles(agentDir);
  const runtimes: SettingsRuntimes = createSettingsRuntimes(agentDir);
  const operations: SettingsOperations = createSettingsOperations({
    clock,
    describeError: (error) => scrubText(error instanceof Error ? error.message : String(error)),
  });
  const lock = new ProviderLock();
  const trashDir = leylineTrashDirOf(agentDir);

  function scrubText(text: string): string {
    return redactSecrets(text, knownSecrets(agentDir, env));
  }
  function scrub<T>(value: T): T {
    return redactStrings(value, knownSecrets(agentDir, env));
  }

  const mcpSettings = createMcpSettings({ files, trashDir, clock, operations, processCwd, agentDir, env, scrub });

  /** The target's folder (spec "Targets and revisions"); validates it. */
  function resolveTarget(target: TargetInput | undefined): string {
    const cwd = target?.cwd;
    const sessionId = target?.sessionId;
    if (cwd !== undefined && (cwd.trim() === "" || !path.isAbsolute(cwd)))
      throw new ServiceError("invalid_request", "target.cwd must be an absolute path");
    if (sessionId !== undefined && sessionId.trim() === "") throw new ServiceError("invalid_request", "target.sessionId must not be empty");
    const sessionCwd = sessionId !== undefined ? openRuntimes.cwdOfSession(sessionId) : null;
    if (cwd !== undefined) {
      if (sessionCwd !== null && path.resolve(sessionCwd) !== path.resolve(cwd)) {
        throw new ServiceError("conflict", "target.cwd differs from the folder of the target session");
      }
      return path.resolve(cwd);
    }
    return sessionCwd ?? processCwd;
  }

  function targetOf(body: { target?: SettingsTarget | undefined }, query?: TargetInput): string {
    return resolveTarget(body.target ?? query);
  }

  /** models.json as read now: its state, parsed config (or the parse failure). */
  function modelsFile(): { state: SettingsFileState; config: unknown; invalid: string | null } {
    const state = readSettingsFile(files.models);
    if (state.blocked !== null && state.text === "") return { state, config: undefined, invalid: state.blocked };
    const parsed = parseJsoncDocument(state.text, "jsonc", "models.json");
    if (!parsed.ok) return { state, config: undefined, invalid: parsed.message };
    return { state, config: parsed.value, invalid: state.blocked };
  }

  /**
   * What is "catalog" for the edit rules: the models the settings runtime knows of a built-in provider (its
   * cached remote catalog included), minus the custom definitions of models.json.
   */
  async function catalogView(): Promise<{ view: CatalogView; builtinIds: Set<string> }> {
    const [catalog, runtime] = await Promise.all([runtimes.catalog(), runtimes.acquire()]);
    const builtinIds = new Set(catalog.getProviders().map((provider) => provider.id));
    const { config } = modelsFile();
    const view: CatalogView = {
      provider(id: string) {
        if (!builtinIds.has(id)) return undefined;
        const custom = customModelIds(modelsJsonProviders(config)[id]);
        const models = runtime.getModels(id).length > 0 ? runtime.getModels(id) : catalog.getModels(id);
        return { models: models.filter((model) => !custom.has(model.id)).map((model) => ({ id: model.id, cost: model.cost })) };
      },
    };
    return { view, builtinIds };
  }

  async function inventory(refresh = false): Promise<ProviderInventory> {
    const { state, config, invalid } = modelsFile();
    const { builtinIds } = await catalogView();
    // An invalid models.json: pi's runtime still loads (it reports the error); the inventory is read-only.
    const runtime = await runtimes.acquire({ refresh, refreshAuth: true });
    const result = providerInventory({
      runtime,
      builtinIds,
      config,
      // The revision even of a file that cannot be edited: a save then answers why (409 with the reason).
      revision: state.revision,
      readOnly: invalid !== null,
      ...(invalid !== null ? { warning: `${invalid} Provider settings are read-only until the file is fixed.` } : {}),
    });
    return scrub(result);
  }

  /**
   * pi's own judgement of a models.json text: a throwaway runtime built from it. An edit that would make pi
   * report an error the file did not have before (pi's rules for provider entries go beyond the spec's, e.g.
   * a built-in provider's entry with only a name) is refused before anything is written.
   */
  async function checkWithPi(before: string, after: string): Promise<void> {
    const errorOf = (text: string): Promise<string | undefined> => runtimes.withModelsText(text, async (runtime) => runtime.getError());
    const [was, would] = await Promise.all([errorOf(before), errorOf(after)]);
    if (would !== undefined && would !== was) throw new ServiceError("invalid_request", `pi would not load this configuration: ${would}`);
  }

  /** Runs a models.json edit under the provider lock; answers the new inventory. */
  async function editModels(
    revision: string | null | undefined,
    edit: (text: string, view: CatalogView) => string,
  ): Promise<ProviderInventory> {
    const { view } = await catalogView();
    await lock.run(async () => {
      const before = readSettingsFile(files.models);
      checkRevision(before, revision);
      const next = edit(before.text, view);
      if (next !== before.text) await checkWithPi(before.text, next);
      // The write checks the revision again (and once more under its lock): the text edited is the text replaced.
      await writeSettingsFile(files.models, { revision, edit: () => next, trashDir, now: clock.now() });
    });
    return inventory();
  }

  function providerKnown(runtime: ModelRuntime, config: unknown, id: string): boolean {
    return runtime.getProvider(id) !== undefined || modelsJsonProviders(config)[id] !== undefined;
  }

  /** The runtime a connection test probes: the saved settings, or a draft laid over them in a throwaway runtime. */
  /**
   * A provider draft that moves the provider to another endpoint or API must not take the saved credential
   * along (spec: drafts "cannot change an OAuth provider's endpoint or API while using its stored login"): an
   * OAuth login never goes; a stored key, an environment key or a models.json key goes only when the draft
   * brings its own key.
   */
  function checkDraftRoute(runtime: ModelRuntime, providerId: string, modelId: string, values: ProviderValues): void {
    const model = runtime.getModel(providerId, modelId) ?? runtime.getModels(providerId)[0];
    const provider = runtime.getProvider(providerId);
    const baseUrl = model?.baseUrl ?? provider?.baseUrl;
    const moves = (values.baseUrl !== undefined && values.baseUrl !== baseUrl) || (values.api !== undefined && values.api !== model?.api);
    if (!moves || !runtime.hasConfiguredAuth(providerId)) return;
    if (runtime.isUsingOAuth(providerId)) {
      throw new ServiceError(
        "conflict",
        `A draft cannot change the endpoint or API of ${providerId} while it uses its stored sign-in: the login would be sent to the new endpoint.`,
      );
    }
    if (values.apiKey === undefined || values.apiKey === null) {
      throw new ServiceError(
        "conflict",
        `This draft changes the endpoint or API of ${providerId}: enter the key to use there. The saved credential is not sent to a changed endpoint.`,
      );
    }
  }

  /** The runtime a connection test probes: the saved settings, or a draft laid over them in a throwaway runtime. */
  async function testWith<T>(body: ProviderActionInput, use: (runtime: ModelRuntime) => Promise<T>): Promise<T> {
    const draft = body.draft;
    if (draft === undefined) return use(await runtimes.acquire());
    const { state } = modelsFile();
    checkRevision(state, draft.revision);
    const { view } = await catalogView();
    const modelId = body.modelId ?? "";
    const saved = await runtimes.acquire();
    let text: string;
    if (draft.type === "provider") {
      checkDraftRoute(saved, body.providerId, modelId, draft.values);
      text = editOutcome(editProvider(state.text, { id: body.providerId, create: draft.create, values: draft.values }, view));
      // A provider draft's root modelId is its physical test model: a new provider has none yet.
      if (draft.create || saved.getModel(body.providerId, modelId) === undefined) {
        text = editOutcome(editModel(text, { providerId: body.providerId, modelId, kind: "custom", create: true, values: {} }, view));
      }
    } else {
      text = editOutcome(
        editModel(state.text, { providerId: body.providerId, modelId, kind: draft.kind, create: draft.create, values: draft.values }, view),
      );
    }
    return runtimes.withModelsText(text, use);
  }

  /** A draft's key (and its command) as secrets of the operation: a provider error may quote them. */
  function draftSecrets(draft: TestDraft | undefined): string[] {
    if (draft?.type !== "provider") return [];
    const key = draft.values.apiKey;
    if (typeof key !== "string" || key.length < 4) return [];
    return key.startsWith("!") ? [key, key.slice(1).trim()] : [key];
  }

  async function runProviderAction(body: ProviderActionInput, ctx: OperationContext): Promise<Record<string, unknown>> {
    switch (body.action) {
      case "login":
        return lock.run(
          async () => {
            const runtime = await runtimes.acquire();
            const conflict = routeConflict(runtime, body.providerId, openRuntimes.routes());
            if (conflict !== null) throw new ServiceError("conflict", conflict);
            return loginProvider(runtime, body.providerId, body.authType ?? "api_key", ctx);
          },
          null,
          ctx.signal,
        );
      case "logout":
        return lock.run(async () => logoutProvider(await runtimes.acquire(), body.providerId, ctx), undefined, ctx.signal);
      case "refresh":
        return refreshProvider(await runtimes.acquire({ refresh: true }), body.providerId, ctx);
      case "test": {
        // durationMs counts the draft's preparation and authentication too (spec), not the queueing before it.
        const started = clock.now();
        const secrets = draftSecrets(body.draft);
        try {
          return await testWith(body, (runtime) =>
            probeModel(runtime, body.providerId, body.modelId ?? "", ctx, () => clock.now(), started),
          );
        } catch (error) {
          if (secrets.length === 0 || !(error instanceof Error)) throw error;
          const message = redactSecrets(error.message, secrets);
          throw error instanceof ServiceError ? new ServiceError(error.code, message) : new Error(message);
        }
      }
    }
  }

  const service: PiSettingsService = {
    async providers(query) {
      resolveTarget(query);
      return inventory(query.refresh === true);
    },

    async catalog(query) {
      resolveTarget(query);
      const q = query.q ?? "";
      if (q.length > 256) throw new ServiceError("invalid_request", "q must be at most 256 characters");
      if (q.trim() === "") return { models: [] };
      let runtime: ModelRuntime;
      let warning: string | undefined;
      if (query.refresh === true) {
        runtime = await runtimes.acquire({ refresh: true });
        try {
          const result = await runtime.refresh({
            allowNetwork: true,
            force: true,
            signal: AbortSignal.timeout(CATALOG_REFRESH_TIMEOUT_MS),
          });
          if (result.aborted || result.errors.size > 0) warning = CATALOG_REFRESH_WARNING;
        } catch {
          warning = CATALOG_REFRESH_WARNING;
        }
        if (runtime.getError() !== undefined) warning = CATALOG_REFRESH_WARNING;
      } else {
        runtime = await runtimes.acquire();
      }
      const models = searchCatalog(runtime.getAllModels(), q);
      return scrub({ models, ...(warning !== undefined ? { warning } : {}) });
    },

    async saveProvider(body) {
      targetOf(body);
      return editModels(body.revision, (text, view) =>
        editOutcome(editProvider(text, { id: body.id, create: body.create === true, values: body.values }, view)),
      );
    },

    async deleteProvider(body) {
      targetOf(body);
      return editModels(body.revision, (text) => editOutcome(deleteProvider(text, body.id)));
    },

    async saveModel(body) {
      targetOf(body);
      return editModels(body.revision, (text, view) =>
        editOutcome(
          editModel(
            text,
            { providerId: body.providerId, modelId: body.modelId, kind: body.kind, create: body.create === true, values: body.values },
            view,
          ),
        ),
      );
    },

    async deleteModel(body) {
      targetOf(body);
      return editModels(body.revision, (text) =>
        editOutcome(deleteModel(text, { providerId: body.providerId, modelId: body.modelId, kind: body.kind })),
      );
    },

    async providerAction(body) {
      targetOf(body);
      const { action, providerId } = body;
      if (action !== "test" && (body.modelId !== undefined || body.draft !== undefined)) {
        throw new ServiceError("invalid_request", "modelId and draft are only accepted by the test action");
      }
      if (action === "test" && (body.modelId === undefined || body.modelId === ""))
        throw new ServiceError("invalid_request", "test requires modelId");
      if (action !== "login" && body.authType !== undefined)
        throw new ServiceError("invalid_request", "authType is only accepted by the login action");
      const runtime = await runtimes.acquire();
      const { config } = modelsFile();
      const isNewDraft = body.draft?.type === "provider" && body.draft.create;
      if (!isNewDraft && !providerKnown(runtime, config, providerId)) {
        throw new ServiceError("settings_not_found", `Unknown provider ${providerId}`);
      }
      if (action === "login") {
        const provider = runtime.getProvider(providerId);
        const methods = [
          ...(provider?.auth.apiKey?.login !== undefined ? ["api_key"] : []),
          ...(provider?.auth.oauth !== undefined ? ["oauth"] : []),
        ];
        if (body.authType === undefined || !methods.includes(body.authType)) {
          throw new ServiceError(
            "invalid_request",
            `authType must be one of this provider's sign-in methods (${methods.join(", ") || "none"})`,
          );
        }
      }
      return scrub(operations.start(`provider:${providerId}`, (ctx) => runProviderAction(body, ctx)));
    },

    ...mcpSettings,

    operation: (id) => scrub(operations.get(id)),
    answer: (id, body) => scrub(operations.answer(id, body)),
    cancel: (id) => scrub(operations.cancel(id)),
    scrubText,
    async close() {
      await operations.close();
    },
  };
  return withScrubbedErrors(service, scrubText, ["scrubText", "close"]);
}
