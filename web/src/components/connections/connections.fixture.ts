/**
 * Test support for the connection components: a fake `fetch` (the network boundary of api/http.ts and
 * api/connections.ts) holding an in-memory connection registry of the native backend (the /api/leyline/connections
 * routes, checked with the server's own name and URL rules) and what each other backend answers to
 * GET <url>/api/pi/info. Every request is recorded with its URL as asked (relative = the page's own origin). An
 * answer can be held back (`hold`) so a test decides the order in which answers arrive.
 */
import { createPinia, setActivePinia, type Pinia } from "pinia";
import { vi } from "vitest";
import { TAB_CONNECTION_KEY } from "../../lib/connection-choice.ts";
import { useBackendConnectionsStore } from "../../stores/backend-connections.store.ts";
import { checkConnectionName, checkConnectionUrl, type BackendRegistry } from "../../../../domain/native-app/native-records.ts";
import { CAPABILITY_NAMES } from "../../backend-info.ts";

export interface SeenRequest {
  method: string;
  /** The URL as the client asked it ("/api/leyline/..." = the page's origin). */
  url: string;
  body: unknown;
}

/** What a backend answers to GET /api/pi/info: an info body, another status, or nothing (unreachable). */
export type InfoAnswer = { status?: number; body: unknown } | "unreachable";

/** A Leyline info body (apiVersion 2 unless told otherwise). */
export const leylineInfo = (version: string, overrides: Record<string, unknown> = {}) => ({
  name: "Leyline",
  version,
  apiVersion: 2,
  capabilities: Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, true])),
  ...overrides,
});

const REGISTRY = "/api/leyline/connections";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * Replaces global `fetch`. `connections` are saved records (name and URL; ids as given), `infos` what each base URL
 * answers (a URL not listed is unreachable). Call `restore()` after the test.
 */
export function fakeConnectionsBackend(options: {
  connections: Array<{ id: string; name: string; url: string }>;
  defaultConnectionId?: string;
  infos?: Record<string, InfoAnswer>;
}) {
  let clock = 1_000;
  let nextId = 1;
  const registry: BackendRegistry = {
    connections: options.connections.map((c) => ({ ...c, createdAt: clock, updatedAt: clock })),
    defaultConnectionId: options.defaultConnectionId ?? "builtin",
  };
  const infos = new Map<string, InfoAnswer>(Object.entries(options.infos ?? {}));
  const requests: SeenRequest[] = [];
  /** Held answers per /api/pi/info URL (in asking order), released by the test. */
  const gates = new Map<string, Array<() => void>>();
  const holding = new Set<string>();
  /** This computer's Leyline stopped answering (registry requests fail as a browser's fetch does). */
  let nativeDown = false;

  const snapshot = () => structuredClone(registry);

  function registryAnswer(method: string, path: string, body: Record<string, unknown>): Response {
    const id = decodeURIComponent(path.slice(REGISTRY.length + 1));
    if (method === "GET" && path === REGISTRY) return json(200, snapshot());
    if (method === "POST" && path === REGISTRY) {
      const name = checkConnectionName(body["name"]);
      if (!name.ok) return json(400, { error: name.error });
      const url = checkConnectionUrl(body["url"]);
      if (!url.ok) return json(400, { error: url.error });
      clock++;
      registry.connections.push({ id: `c${nextId++}`, name: name.value, url: url.value, createdAt: clock, updatedAt: clock });
      return json(201, snapshot());
    }
    if (method === "PUT" && path === `${REGISTRY}/default`) {
      const target = body["id"];
      if (target !== "builtin" && !registry.connections.some((c) => c.id === target)) return json(404, { error: "No such connection." });
      registry.defaultConnectionId = String(target);
      return json(200, snapshot());
    }
    const saved = registry.connections.find((c) => c.id === id);
    if (saved === undefined) return json(404, { error: "No such connection." });
    if (method === "PATCH") {
      if (body["name"] !== undefined) {
        const name = checkConnectionName(body["name"]);
        if (!name.ok) return json(400, { error: name.error });
        saved.name = name.value;
      }
      if (body["url"] !== undefined) {
        const url = checkConnectionUrl(body["url"]);
        if (!url.ok) return json(400, { error: url.error });
        saved.url = url.value;
      }
      saved.updatedAt = ++clock;
      return json(200, snapshot());
    }
    if (method === "DELETE") {
      registry.connections = registry.connections.filter((c) => c.id !== id);
      if (registry.defaultConnectionId === id) registry.defaultConnectionId = "builtin";
      return json(200, snapshot());
    }
    return json(404, { error: "No such route." });
  }

  async function infoAnswer(url: string, signal: AbortSignal | undefined): Promise<Response> {
    const base = url.slice(0, -"/api/pi/info".length);
    if (holding.has(base)) {
      await new Promise<void>((resolve, reject) => {
        gates.set(url, [...(gates.get(url) ?? []), resolve]);
        signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted.", "AbortError")));
      });
    }
    // Read when the answer leaves, so a held answer reports what the backend says by then.
    const answer = infos.get(base) ?? "unreachable";
    if (answer === "unreachable") throw new TypeError("Failed to fetch");
    return json(answer.status ?? 200, answer.body);
  }

  const fetchFake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? "GET";
    const raw = init?.body;
    const body = typeof raw === "string" ? (JSON.parse(raw) as unknown) : undefined;
    requests.push({ method, url, body });
    if (url === REGISTRY || url.startsWith(`${REGISTRY}/`)) {
      if (nativeDown) throw new TypeError("Failed to fetch");
      return registryAnswer(method, url, (body ?? {}) as Record<string, unknown>);
    }
    if (/^https?:\/\//.test(url) && url.endsWith("/api/pi/info")) return infoAnswer(url, init?.signal ?? undefined);
    return json(404, { error: `The fake has no route for ${method} ${url}.` });
  };
  vi.stubGlobal("fetch", fetchFake);

  return {
    registry,
    requests,
    /** Registry requests as "METHOD url". */
    registryCalls: () => requests.filter((r) => !/^https?:/.test(r.url)).map((r) => `${r.method} ${r.url}`),
    /** The /api/pi/info URLs asked, in order. */
    probes: () => requests.filter((r) => r.url.endsWith("/api/pi/info")).map((r) => r.url),
    setNativeDown: (down: boolean) => void (nativeDown = down),
    setInfo: (base: string, answer: InfoAnswer) => void infos.set(base, answer),
    /** From now on, /api/pi/info answers of `base` wait until released. */
    hold: (base: string) => void holding.add(base),
    /** Lets the oldest held answer of `base` go (resolves once it was asked). */
    async release(base: string): Promise<void> {
      const url = `${base}/api/pi/info`;
      await vi.waitFor(() => {
        if ((gates.get(url) ?? []).length === 0) throw new Error(`no answer of ${url} is held`);
      });
      const [first, ...rest] = gates.get(url) ?? [];
      gates.set(url, rest);
      first?.();
    },
    /** Lets every held answer go and stops holding (cleanup). */
    releaseAll(): void {
      holding.clear();
      for (const waiting of gates.values()) for (const go of waiting) go();
      gates.clear();
    },
    restore: () => vi.unstubAllGlobals(),
  };
}

export type FakeConnectionsBackend = ReturnType<typeof fakeConnectionsBackend>;

/**
 * Boots the connections store as main.ts does (the tab's choice, when given, in sessionStorage) on a new Pinia;
 * page reloads are counted instead of done.
 */
export async function bootConnections(
  tabChoice: string | null,
): Promise<{ pinia: Pinia; store: ReturnType<typeof useBackendConnectionsStore>; reloads: number[] }> {
  if (tabChoice !== null) sessionStorage.setItem(TAB_CONNECTION_KEY, tabChoice);
  const pinia = createPinia();
  setActivePinia(pinia);
  const store = useBackendConnectionsStore();
  const reloads: number[] = [];
  store.useNavigator({ reload: () => reloads.push(1) });
  await store.boot();
  return { pinia, store, reloads };
}
