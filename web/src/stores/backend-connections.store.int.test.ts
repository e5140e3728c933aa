// @vitest-environment node
// The store against two real backend apps on loopback ports: the native one (registry) and a remote one.
import { createPinia, setActivePinia } from "pinia";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../api/app.ts";
import { apiBase, setApiBase, setNativeBase } from "../api/http.ts";
import { TAB_CONNECTION_KEY } from "../lib/connection-choice.ts";
import { useBackendConnectionsStore } from "./backend-connections.store.ts";

const apps: FastifyInstance[] = [];
let nativeUrl = "";
let remoteUrl = "";
let root = "";

async function start(name: string): Promise<string> {
  const dir = path.join(root, name);
  const app = await buildApp({ dataDir: path.join(dir, "data"), agentDir: path.join(dir, "agent"), env: {}, watchSessions: false });
  apps.push(app);
  return app.listen({ port: 0, host: "127.0.0.1" });
}

/** sessionStorage of one tab (node has none). */
const tab = new Map<string, string>();
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-connections-"));
  nativeUrl = await start("native");
  remoteUrl = await start("remote");
  setNativeBase(nativeUrl);
  Object.defineProperty(globalThis, "sessionStorage", {
    configurable: true,
    value: {
      getItem: (key: string) => tab.get(key) ?? null,
      setItem: (key: string, value: string) => void tab.set(key, value),
      removeItem: (key: string) => void tab.delete(key),
    },
  });
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  setNativeBase("");
  setApiBase("");
  Reflect.deleteProperty(globalThis, "sessionStorage");
  fs.rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  tab.clear();
  setActivePinia(createPinia());
});

function storeWithNavigator() {
  const store = useBackendConnectionsStore();
  const reloads: number[] = [];
  store.useNavigator({ reload: () => reloads.push(1) });
  return { store, reloads };
}

describe("useBackendConnectionsStore", () => {
  it("boots on the native backend, then on the registry's default, then on the tab's own choice", async () => {
    const { store } = storeWithNavigator();
    expect(await store.boot()).toMatchObject({ id: "builtin", url: "" });
    expect(apiBase()).toBe("");

    const registry = await store.add("Remote", `${remoteUrl}/`);
    const remote = registry.connections.find((c) => c.name === "Remote")!;
    expect(remote.url).toBe(remoteUrl);
    await store.makeDefault(remote.id);

    setActivePinia(createPinia());
    expect(await useBackendConnectionsStore().boot()).toMatchObject({ id: remote.id, name: "Remote", url: remoteUrl });
    expect(apiBase()).toBe(remoteUrl);

    tab.set(TAB_CONNECTION_KEY, "builtin");
    setActivePinia(createPinia());
    expect(await useBackendConnectionsStore().boot()).toMatchObject({ id: "builtin" });
    expect(apiBase()).toBe("");

    await store.makeDefault("builtin");
    await store.remove(remote.id);
  });

  it("moves the window only to a backend that answers as Leyline; a refusal leaves it where it is", async () => {
    const { store, reloads } = storeWithNavigator();
    await store.boot();
    // A port nothing listens on: the apps are closed at the end, so take a fresh one and close it.
    const closed = await start("closed");
    await apps.pop()!.close();
    await store.add("Gone", closed);
    await store.add("Remote", remoteUrl);
    const gone = store.registry!.connections.find((c) => c.name === "Gone")!;
    const remote = store.registry!.connections.find((c) => c.name === "Remote")!;

    const refusal = await store.moveTo(gone.id);
    expect(refusal).toMatch(/cannot be reached/);
    expect(reloads).toHaveLength(0);
    expect(tab.get(TAB_CONNECTION_KEY)).toBeUndefined();

    expect(await store.moveTo(remote.id)).toBeNull();
    expect(reloads).toHaveLength(1);
    expect(tab.get(TAB_CONNECTION_KEY)).toBe(remote.id);

    expect(await store.moveTo("no-such-id")).toBe("This connection no longer exists.");
  });
});
