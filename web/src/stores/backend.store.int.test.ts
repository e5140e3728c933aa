// @vitest-environment node
// The store against the real backend app on a loopback port (no stand-ins).
import { createPinia, setActivePinia } from "pinia";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../api/app.ts";
import { useBackendStore } from "./backend.store.ts";

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function listen(): Promise<string> {
  // Temp dirs: never the machine's own ~/.pi or Leyline data dir.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-backend-store-"));
  app = await buildApp({
    version: "7.7.7",
    dataDir: path.join(root, "data"),
    agentDir: path.join(root, "agent"),
    env: {},
    watchSessions: false,
  });
  return app.listen({ port: 0, host: "127.0.0.1" });
}

describe("useBackendStore", () => {
  it("loads the backend info from a real server", async () => {
    setActivePinia(createPinia());
    const store = useBackendStore();
    store.baseUrl = await listen();
    await store.load();
    expect(store.status).toBe("ready");
    expect(store.info).toMatchObject({ name: "Leyline", version: "7.7.7", apiVersion: 2 });
    expect(store.problem).toBe("");
  });

  it("reports an unreachable backend", async () => {
    setActivePinia(createPinia());
    const store = useBackendStore();
    const url = await listen();
    await app?.close();
    app = undefined;
    store.baseUrl = url;
    await store.load();
    expect(store.status).toBe("unreachable");
    expect(store.problem).not.toBe("");
  });
});
