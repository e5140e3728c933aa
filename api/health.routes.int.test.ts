import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "./app.ts";
import { closeTestApps, copyFixture, testApp, testDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

describe("health and probes", () => {
  it("answers health, live, ready and diagnostics once the read side is ready", async () => {
    const dirs = testDirs("health");
    copyFixture("v1-large-session.jsonl", dirs);
    fs.writeFileSync(path.join(dirs.projectSessions, "broken.jsonl"), "{oops\n");
    const { app } = await testApp({}, dirs);

    expect((await app.inject({ method: "GET", url: "/api/health" })).json()).toEqual({ ok: true, activeWorkers: 0 });
    const live = await app.inject({ method: "GET", url: "/internal/live" });
    expect(live.statusCode).toBe(200);
    const ready = await app.inject({ method: "GET", url: "/internal/ready" });
    expect(ready.statusCode).toBe(200);

    const diagnostics = await app.inject({ method: "GET", url: "/internal/diagnostics" });
    expect(diagnostics.statusCode).toBe(200);
    const body = diagnostics.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      epoch: app.leyline.epoch,
      readSide: { phase: "ready", failure: null },
      sessionIndex: { ready: true, filesOnDisk: 2, indexed: 1, invalid: 1 },
      dataDir: dirs.dataDir,
      databaseFile: path.join(dirs.dataDir, "leyline.sqlite"),
      agentDir: dirs.agentDir,
      activeWorkers: 0,
      openRuntimes: 0,
    });
    expect(typeof body["uptimeMs"]).toBe("number");
    expect((body["memory"] as { rss: number }).rss).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toMatch(/PATH|HOME=|auth\.json/);
  });

  it("keeps /internal/ready at 503 with the envelope when start-up fails, while /internal/live stays 200", async () => {
    const dirs = testDirs("health-fail");
    const notADir = path.join(dirs.root, "data-is-a-file");
    fs.writeFileSync(notADir, "x");
    const app = await buildApp({ dataDir: notADir, agentDir: dirs.agentDir, env: {} });
    try {
      await expect(app.leyline.readSide.ready()).rejects.toThrow();
      const ready = await app.inject({ method: "GET", url: "/internal/ready" });
      expect(ready.statusCode).toBe(503);
      expect(Object.keys(ready.json<object>())).toEqual(["error"]);
      expect((await app.inject({ method: "GET", url: "/internal/live" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/internal/diagnostics" })).json()).toMatchObject({
        readSide: { phase: "failed" },
        sessionIndex: null,
      });
      const sessions = await app.inject({ method: "GET", url: "/api/pi/sessions" });
      expect(sessions.statusCode).toBe(500);
      expect(sessions.json()).toEqual({ error: "Internal server error" });
    } finally {
      await app.close();
    }
  });

  it("closes the database and the index with the app", async () => {
    const { app } = await testApp();
    const services = app.leyline.readSide.current();
    expect(services).not.toBeNull();
    await app.close();
    expect(app.leyline.readSide.phase()).toBe("closed");
    expect(services?.index.watchedFolders()).toBe(0);
    await expect(services?.database.db.selectFrom("projection_checkpoints").selectAll().execute()).rejects.toThrow();
  });
});
