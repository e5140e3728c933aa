/**
 * pi's agent-dir files made create-on-write: starting pi's model runtime on an agent dir without auth.json or
 * models-store.json creates neither; the first write (a stored key) creates auth.json through pi's own backend
 * (mode 0600); an existing file is read and updated as pi does.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pi from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installCreateOnWriteAgentFiles, loadPiFileBackend } from "./agent-files-on-write.ts";

describe("create-on-write agent files", () => {
  let dir: string;
  let authPath: string;
  beforeEach(async () => {
    await installCreateOnWriteAgentFiles();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-auth-"));
    authPath = path.join(dir, "auth.json");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const runtime = (): Promise<pi.ModelRuntime> => pi.ModelRuntime.create({ authPath, modelsPath: path.join(dir, "models.json") });

  it("finds pi's file backend, the one pi's own modules use", async () => {
    const Backend = await loadPiFileBackend();
    const backend = new Backend(authPath);
    expect(backend.withLock(() => ({ result: 1 }))).toBe(1);
    expect(fs.existsSync(authPath)).toBe(false);
  });

  it("starts pi's model runtime, lists models and credentials, and creates nothing", async () => {
    const models = await runtime();
    expect(models.getModels().length).toBeGreaterThan(0);
    expect(await models.listCredentials()).toEqual([]);
    expect(models.hasConfiguredAuth("anthropic")).toBe(false);
    await models.refresh({ allowNetwork: false });
    await models.settleCredentialWrites();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("creates auth.json on the first write, as pi's backend does", async () => {
    await runtime();
    expect(fs.existsSync(authPath)).toBe(false);
    const Backend = await loadPiFileBackend();
    new Backend(authPath).withLock(() => ({ result: undefined, next: JSON.stringify({ openai: { type: "api_key", key: "sk-test" } }) }));
    expect(JSON.parse(fs.readFileSync(authPath, "utf8"))).toEqual({ openai: { type: "api_key", key: "sk-test" } });
    expect(fs.statSync(authPath).mode & 0o777).toBe(0o600);
    const again = await runtime();
    expect((await again.listCredentials()).map((entry) => entry.providerId)).toEqual(["openai"]);
  });

  it("reads and updates an existing file", async () => {
    fs.writeFileSync(authPath, JSON.stringify({ google: { type: "api_key", key: "g" } }));
    const Backend = await loadPiFileBackend();
    const backend = new Backend(authPath);
    await backend.withLockAsync(async (current) => {
      const data = JSON.parse(current ?? "{}") as Record<string, unknown>;
      return { result: undefined, next: JSON.stringify({ ...data, openai: { type: "api_key", key: "o" } }) };
    });
    expect(Object.keys(JSON.parse(fs.readFileSync(authPath, "utf8")) as object).sort()).toEqual(["google", "openai"]);
    expect((await (await runtime()).listCredentials()).map((entry) => entry.providerId).sort()).toEqual(["google", "openai"]);
  });
});
