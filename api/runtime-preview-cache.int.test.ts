/**
 * GET /api/pi/state answers from its cache after the first call, and builds again when what a preview reads
 * changed: the app with a real runtime host (in-process workers running real pi runtimes, counted through the
 * worker factory) over a real temp agent dir. Each change is one pi reads (models.json, a prompt template,
 * the project's `.pi/settings.json`, auth.json) and the rebuilt preview shows it where it is visible; a file
 * pi does not read changes nothing; `refresh=1` builds anew whatever the cache holds.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { InProcessWorkerClient } from "../adapters/runtime-client/in-process-worker-client.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, runtimeApiSuite } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-preview-cache-");
const { dirs } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

async function countingApp(): Promise<{ app: FastifyInstance; builds: () => number }> {
  let created = 0;
  const app = await suite.makeApp({
    turns: [],
    host: {
      createClient: ({ fauxScript }) => {
        created += 1;
        return InProcessWorkerClient.start({ fauxScript });
      },
    },
  });
  return { app, builds: () => created };
}

async function state(app: FastifyInstance, cwd: string, refresh = false): Promise<Active> {
  const res = await call(app, "GET", `/api/pi/state?cwd=${encodeURIComponent(cwd)}${refresh ? "&refresh=1" : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body["active"] as Active;
}

const modelNames = (active: Active): string[] => active.state.availableModels.map((model) => `${model.provider}/${model.id}`);
const commandNames = (active: Active): string[] => active.state.slashCommands.map((command) => command.name);

describe("GET /api/pi/state preview cache", () => {
  it("serves the first preview again until an input changes; each change rebuilds it once", async () => {
    const { app, builds } = await countingApp();
    const cwd = path.join(dirs.root, "cached-project");
    fs.mkdirSync(cwd, { recursive: true });

    const first = await state(app, cwd);
    expect(builds()).toBe(1);
    expect(first).toMatchObject({ id: "", path: "", cwd });
    expect(modelNames(first)).not.toContain("local/local-1");
    expect(await state(app, cwd)).toEqual(first);
    // a file pi does not read leaves the cache alone
    fs.writeFileSync(path.join(cwd, "notes.txt"), "not read by pi\n");
    await state(app, cwd);
    expect(builds()).toBe(1);

    // pi's models.json: the next request builds, and the preview lists the new model
    fs.writeFileSync(
      path.join(dirs.agentDir, "models.json"),
      JSON.stringify({
        providers: {
          local: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "local-key", models: [{ id: "local-1" }] },
        },
      }),
    );
    const withModel = await state(app, cwd);
    expect(builds()).toBe(2);
    expect(modelNames(withModel)).toContain("local/local-1");
    expect(await state(app, cwd)).toEqual(withModel);
    expect(builds()).toBe(2);

    // a prompt template in the agent dir: a new slash command
    fs.mkdirSync(path.join(dirs.agentDir, "prompts"), { recursive: true });
    fs.writeFileSync(path.join(dirs.agentDir, "prompts", "greet.md"), "---\ndescription: Greets\n---\nSay hello.\n");
    const withPrompt = await state(app, cwd);
    expect(builds()).toBe(3);
    expect(commandNames(withPrompt)).toContain("greet");

    // the project's .pi folder, then auth.json
    fs.mkdirSync(path.join(cwd, ".pi"), { recursive: true });
    fs.writeFileSync(path.join(cwd, ".pi", "settings.json"), "{}\n");
    await state(app, cwd);
    expect(builds()).toBe(4);
    fs.writeFileSync(path.join(dirs.agentDir, "auth.json"), "{}\n");
    await state(app, cwd);
    await state(app, cwd);
    expect(builds()).toBe(5);

    // another folder has its own preview; the first one stays cached
    const other = path.join(dirs.root, "other-project");
    fs.mkdirSync(other, { recursive: true });
    await state(app, other);
    expect(builds()).toBe(6);
    await state(app, cwd);
    expect(builds()).toBe(6);
  });

  it("refresh=1 builds a fresh preview even when nothing changed, and the cache keeps the fresh one", async () => {
    const { app, builds } = await countingApp();
    const cwd = path.join(dirs.root, "refreshed-project");
    fs.mkdirSync(cwd, { recursive: true });
    await state(app, cwd);
    await state(app, cwd);
    expect(builds()).toBe(1);
    await state(app, cwd, true);
    expect(builds()).toBe(2);
    await state(app, cwd, true);
    expect(builds()).toBe(3);
    await state(app, cwd);
    expect(builds()).toBe(3);
  });
});
