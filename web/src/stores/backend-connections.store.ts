/**
 * The backend this window talks to (spec "Connection registry"): the native backend (id "builtin", the page's own
 * origin) or a saved connection to another Leyline backend. The registry itself, pins, app settings and network
 * access always live on the native backend (web/src/api/http.ts `nativeHttp`); everything else goes to the active
 * connection (`http`, the sockets: web/src/api/http.ts `setApiBase`).
 *
 * The window's connection is chosen once at boot (`boot`: the tab's own choice, else the registry's default;
 * lib/connection-choice.ts) and changes only by moving the window (`moveTo`): the target is checked first (GET
 * /api/pi/info: a Leyline backend of this API version), then the tab remembers it and the page reloads on it, so
 * no state of one backend (sessions, sockets, drafts of the open session) leaks into the other.
 */
import { defineStore } from "pinia";
import { computed, ref } from "vue";
import * as api from "../api/connections.ts";
import { errorMessage, setApiBase } from "../api/http.ts";
import {
  BUILTIN_CONNECTION_ID,
  chooseConnection,
  NATIVE_CONNECTION,
  TAB_CONNECTION_KEY,
  type ActiveConnection,
} from "../lib/connection-choice.ts";
import { readTabValue, writeTabValue } from "../lib/local-storage.ts";

export { BUILTIN_CONNECTION_ID };

/** How the page moves to another backend (tests replace it). */
export interface PageNavigator {
  reload(): void;
}

/** How long boot waits for the registry before the window starts on this computer's Leyline. */
export const BOOT_REGISTRY_TIMEOUT_MS = 5000;

const browserNavigator: PageNavigator = {
  reload: () => globalThis.location.assign("/"),
};

export const useBackendConnectionsStore = defineStore("backend-connections", () => {
  /** The connection this window talks to. */
  const active = ref<ActiveConnection>(NATIVE_CONNECTION);
  const activeId = computed(() => active.value.id);
  const registry = ref<api.BackendRegistry | null>(null);
  /** The registry could not be read (the native backend is unreachable): words for the switcher. */
  const problem = ref("");
  /** The connection id the window is moving to (its check running), or null. */
  const moving = ref<string | null>(null);
  let navigator: PageNavigator = browserNavigator;

  /**
   * Set at boot when the registry could not be read while this tab had chosen another backend: the window then
   * uses this computer's Leyline, and says so (App.vue's banner) instead of quietly acting on the wrong machine.
   */
  const bootProblem = ref("");
  /** Registry answers are applied in the order they were asked (a slow read never undoes a later change). */
  let asked = 0;
  let applied = 0;

  /** Reads the registry and selects the tab's connection; points the API at it. Call before the app mounts. */
  async function boot(): Promise<ActiveConnection> {
    await refresh(AbortSignal.timeout(BOOT_REGISTRY_TIMEOUT_MS));
    const choice = readTabValue(TAB_CONNECTION_KEY);
    active.value = chooseConnection(registry.value, choice);
    if (registry.value === null && choice !== null && choice !== BUILTIN_CONNECTION_ID) {
      bootProblem.value = `The saved connections could not be read (${problem.value}), so this window uses this computer's Leyline instead of the backend it had chosen.`;
    }
    setApiBase(active.value.url);
    return active.value;
  }

  async function refresh(signal?: AbortSignal): Promise<void> {
    const mine = ++asked;
    try {
      const next = await api.fetchRegistry(signal);
      if (mine > applied) {
        applied = mine;
        registry.value = next;
      }
      problem.value = "";
    } catch (error) {
      problem.value = signal?.aborted === true ? "this computer's Leyline did not answer in time" : errorMessage(error);
    }
  }

  function adopt(next: api.BackendRegistry): api.BackendRegistry {
    applied = ++asked;
    problem.value = "";
    registry.value = next;
    // The active connection's name or URL may have changed: show the new name (the URL in use stays until a move).
    const saved = next.connections.find((c) => c.id === active.value.id);
    if (saved !== undefined) active.value = { ...active.value, name: saved.name };
    return next;
  }

  /**
   * Moves this window to a connection: checks it answers as a Leyline backend of this API version, remembers it
   * for this tab and reloads the page on it. Resolves with the refusal's words when the check fails (the window
   * stays where it is); a move to the native backend needs no check.
   */
  async function moveTo(id: string): Promise<string | null> {
    if (id === active.value.id) return null;
    const target = id === BUILTIN_CONNECTION_ID ? NATIVE_CONNECTION : registry.value?.connections.find((c) => c.id === id);
    if (target === undefined) return "This connection no longer exists.";
    moving.value = id;
    try {
      if (target.url !== "") {
        const probe = await api.probeBackend(target.url);
        if (!probe.ok) return probe.reason;
      }
      writeTabValue(TAB_CONNECTION_KEY, id);
      navigator.reload();
      return null;
    } finally {
      moving.value = null;
    }
  }

  const add = async (name: string, url: string) => adopt(await api.addConnection(name, url));
  const update = async (id: string, changes: { name?: string; url?: string }) => adopt(await api.updateConnection(id, changes));
  const remove = async (id: string) => adopt(await api.removeConnection(id));
  const makeDefault = async (id: string) => adopt(await api.setDefaultConnection(id));

  /** Tests: how the page moves. */
  function useNavigator(next: PageNavigator): void {
    navigator = next;
  }

  return {
    active,
    activeId,
    registry,
    problem,
    bootProblem,
    moving,
    boot,
    refresh,
    moveTo,
    add,
    update,
    remove,
    makeDefault,
    useNavigator,
  };
});
