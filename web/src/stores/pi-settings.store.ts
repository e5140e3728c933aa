import { defineStore } from "pinia";
import { ref } from "vue";
import { ApiError, errorMessage } from "../api/http.ts";
import {
  deleteMcpServer,
  deleteModel,
  deleteProvider,
  getMcpServers,
  getProviders,
  saveMcpServer,
  saveModel,
  saveProvider,
  searchCatalog,
  type CatalogResult,
  type DeleteModelBody,
  type McpInventory,
  type McpValues,
  type ProviderInventory,
  type SaveModelBody,
  type SaveProviderBody,
  type SettingsTarget,
} from "../api/pi-settings.ts";

/** The spec's revision messages ("Targets and revisions"): a 409 with one of them means "refresh, then save again". */
export const REVISION_MISSING = "Refresh settings before saving.";
export const REVISION_STALE = "This configuration changed outside this editor. Refresh it before saving.";
export const REVISION_CHANGED_WHILE_SAVING = "This configuration changed while saving. Refresh it before saving again.";
export const REVISION_MESSAGES: readonly string[] = [REVISION_MISSING, REVISION_STALE, REVISION_CHANGED_WHILE_SAVING];

/** Whether an error (or an operation's error text) is one of the revision messages. */
export function isRevisionMessage(message: string): boolean {
  return REVISION_MESSAGES.includes(message.trim());
}

export function isRevisionConflict(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 409 && isRevisionMessage(error.message);
}

/** Which file a write went to: models.json (providers and models) or mcp.json. */
export type SettingsScope = "providers" | "mcp";

export type LoadStatus = "idle" | "loading" | "ready" | "error";

/** The result of a write: the editor keeps its form on failure; `stale` failures show the Refresh banner instead. */
export type WriteResult = { ok: true } | { ok: false; error: string; stale: boolean };

export interface StaleState {
  scope: SettingsScope;
  message: string;
}

/**
 * Pi Settings of the selected backend (spec "Pi Settings routes"): the provider inventory (models.json) and the
 * MCP inventory (mcp.json), each with the whole-file revision every write sends back.
 *
 * A write that answers 409 with a revision message never retries: the store marks that scope `stale`, the
 * editor keeps its form, and the Settings modal shows the message with a Refresh button (`refreshStale`) that
 * re-reads the inventory; saving again is the person's decision.
 *
 * `modelsChangeCount` goes up when the modal closes after a successful provider/model change or sign-in, so
 * the start screen can ask for a fresh /state preview (new models in its picker without a restart).
 */
export const usePiSettingsStore = defineStore("pi-settings", () => {
  /** The extension context of reads and writes (a folder); undefined: the backend's default. */
  const target = ref<SettingsTarget | undefined>(undefined);

  const providers = ref<ProviderInventory | null>(null);
  const providersStatus = ref<LoadStatus>("idle");
  const providersError = ref("");

  const mcp = ref<McpInventory | null>(null);
  const mcpStatus = ref<LoadStatus>("idle");
  const mcpError = ref("");

  const stale = ref<StaleState | null>(null);
  const saving = ref(false);
  /** A provider/model change or a credential change since the modal opened. */
  const changedSinceOpen = ref(false);
  const modelsChangeCount = ref(0);

  let providersToken = 0;
  let mcpToken = 0;

  function setTarget(next: SettingsTarget | undefined): void {
    target.value = next === undefined || (next.cwd === undefined && next.sessionId === undefined) ? undefined : next;
  }

  async function loadProviders(options: { refresh?: boolean } = {}): Promise<boolean> {
    const token = ++providersToken;
    providersStatus.value = "loading";
    providersError.value = "";
    try {
      const inventory = await getProviders(target.value, options.refresh === true);
      if (token !== providersToken) return false;
      providers.value = inventory;
      providersStatus.value = "ready";
      if (stale.value?.scope === "providers") stale.value = null;
      return true;
    } catch (error) {
      if (token !== providersToken) return false;
      providersError.value = errorMessage(error);
      providersStatus.value = "error";
      return false;
    }
  }

  async function loadMcp(): Promise<boolean> {
    const token = ++mcpToken;
    mcpStatus.value = "loading";
    mcpError.value = "";
    try {
      const inventory = await getMcpServers();
      if (token !== mcpToken) return false;
      mcp.value = inventory;
      mcpStatus.value = "ready";
      if (stale.value?.scope === "mcp") stale.value = null;
      return true;
    } catch (error) {
      if (token !== mcpToken) return false;
      mcpError.value = errorMessage(error);
      mcpStatus.value = "error";
      return false;
    }
  }

  /** The Refresh button of the stale banner: re-reads the inventory the failed write went to. Never re-saves. */
  async function refreshStale(): Promise<boolean> {
    const scope = stale.value?.scope;
    if (scope === undefined) return true;
    return scope === "providers" ? loadProviders() : loadMcp();
  }

  function revisionOf(scope: SettingsScope): string | null {
    return scope === "providers" ? (providers.value?.revision ?? null) : (mcp.value?.revision ?? null);
  }

  /** One write with the scope's current revision; the answer is the new inventory. */
  async function write<T extends ProviderInventory | McpInventory>(
    scope: SettingsScope,
    send: (revision: string) => Promise<T>,
  ): Promise<WriteResult> {
    if (stale.value?.scope === scope) return { ok: false, error: stale.value.message, stale: true };
    const revision = revisionOf(scope);
    if (revision === null || revision === "") {
      stale.value = { scope, message: REVISION_MISSING };
      return { ok: false, error: REVISION_MISSING, stale: true };
    }
    saving.value = true;
    try {
      const inventory = await send(revision);
      if (scope === "providers") {
        providersToken++;
        providers.value = inventory as ProviderInventory;
        providersStatus.value = "ready";
        changedSinceOpen.value = true;
      } else {
        mcpToken++;
        mcp.value = inventory as McpInventory;
        mcpStatus.value = "ready";
      }
      return { ok: true };
    } catch (error) {
      if (isRevisionConflict(error)) {
        stale.value = { scope, message: error.message };
        return { ok: false, error: error.message, stale: true };
      }
      return { ok: false, error: errorMessage(error), stale: false };
    } finally {
      saving.value = false;
    }
  }

  function putProvider(input: Omit<SaveProviderBody, "target" | "revision">): Promise<WriteResult> {
    return write("providers", (revision) => saveProvider({ ...input, revision }, target.value));
  }

  function removeProvider(id: string): Promise<WriteResult> {
    return write("providers", (revision) => deleteProvider({ id, revision }, target.value));
  }

  function putModel(input: Omit<SaveModelBody, "target" | "revision">): Promise<WriteResult> {
    return write("providers", (revision) => saveModel({ ...input, revision }, target.value));
  }

  function removeModel(input: Omit<DeleteModelBody, "target" | "revision">): Promise<WriteResult> {
    return write("providers", (revision) => deleteModel({ ...input, revision }, target.value));
  }

  function putMcpServer(input: { name: string; create?: boolean; values: McpValues }): Promise<WriteResult> {
    return write("mcp", (revision) => saveMcpServer({ ...input, revision }));
  }

  function removeMcpServer(name: string): Promise<WriteResult> {
    return write("mcp", (revision) => deleteMcpServer({ name, revision }));
  }

  function findCatalog(q: string, options: { refresh?: boolean; signal?: AbortSignal } = {}): Promise<CatalogResult> {
    return searchCatalog(q, target.value, options);
  }

  /**
   * A sign-in, sign-out or catalog refresh ended: re-read the inventory (credentials or the catalog may have
   * changed, even when a sign-in was cancelled after saving). `completed`: the start screen's models are stale.
   */
  async function providerActionEnded(completed: boolean): Promise<void> {
    if (completed) changedSinceOpen.value = true;
    await loadProviders();
  }

  /** A write or operation failed with a revision message (e.g. a draft test): show the Refresh banner. */
  function noteStale(scope: SettingsScope, message: string): void {
    if (isRevisionMessage(message)) stale.value = { scope, message: message.trim() };
  }

  /** The modal opened: start counting changes afresh. */
  function opened(): void {
    changedSinceOpen.value = false;
  }

  /** The modal closed: tell the start screen when its model list may be out of date. */
  function closed(): void {
    if (changedSinceOpen.value) modelsChangeCount.value++;
    changedSinceOpen.value = false;
  }

  return {
    target,
    providers,
    providersStatus,
    providersError,
    mcp,
    mcpStatus,
    mcpError,
    stale,
    saving,
    changedSinceOpen,
    modelsChangeCount,
    setTarget,
    loadProviders,
    loadMcp,
    refreshStale,
    putProvider,
    removeProvider,
    putModel,
    removeModel,
    putMcpServer,
    removeMcpServer,
    findCatalog,
    providerActionEnded,
    noteStale,
    opened,
    closed,
  };
});
