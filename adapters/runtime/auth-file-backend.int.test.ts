/**
 * The auth.json backend: reading an agent dir without auth.json creates nothing; the first write creates it
 * through pi's own backend (mode 0600); an existing file is read and updated as pi does.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { AuthStorage, FileAuthStorageBackend } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOnWriteAuthBackend } from "./auth-file-backend.ts";

describe("createOnWriteAuthBackend", () => {
  let dir: string;
  let authPath: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-auth-"));
    authPath = path.join(dir, "auth.json");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const storage = (): AuthStorage => AuthStorage.fromStorage(createOnWriteAuthBackend(authPath, new FileAuthStorageBackend(authPath)));

  it("reads a missing auth.json as no credentials and creates nothing", async () => {
    const auth = storage();
    auth.reload();
    expect(auth.list()).toEqual([]);
    expect(auth.get("anthropic")).toBeUndefined();
    await auth.getApiKey("anthropic");
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("creates the file on the first write, as pi's backend does", () => {
    const auth = storage();
    auth.set("openai", { type: "api_key", key: "sk-test" });
    expect(JSON.parse(fs.readFileSync(authPath, "utf8"))).toEqual({ openai: { type: "api_key", key: "sk-test" } });
    expect(fs.statSync(authPath).mode & 0o777).toBe(0o600);
    expect(storage().get("openai")).toEqual({ type: "api_key", key: "sk-test" });
  });

  it("reads and updates an existing file", () => {
    fs.writeFileSync(authPath, JSON.stringify({ google: { type: "api_key", key: "g" } }));
    const auth = storage();
    expect(auth.get("google")).toEqual({ type: "api_key", key: "g" });
    auth.set("openai", { type: "api_key", key: "o" });
    expect(Object.keys(JSON.parse(fs.readFileSync(authPath, "utf8")) as object).sort()).toEqual(["google", "openai"]);
  });
});
