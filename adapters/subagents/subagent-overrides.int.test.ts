import fs from "node:fs";
import path from "node:path";
import { Migrator, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { RESEARCHER_AGENT, RESEARCHER_AGENT_KEY } from "../../domain/subagent/researcher-agent.ts";
import { headerLine, tempDir } from "../session-files/session-lines.fixture.ts";
import { openLeylineDatabase, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { leylineMigrationProvider } from "../sqlite/leyline-migrations.ts";
import { canonicalPath, projectIdOf, resolveSubagentContext } from "./subagent-context.ts";
import {
  copySessionOverrides,
  deleteSubagentOverride,
  listSubagentOverrides,
  setSubagentOverride,
  subagentOverridesOf,
} from "./subagent-overrides.ts";
import { resolveSubagentSettings } from "./subagent-settings.ts";

const handles: LeylineDatabaseHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function database(dataDir = tempDir("overrides-db")): Promise<LeylineDatabaseHandle> {
  const handle = await openLeylineDatabase({ dataDir });
  handles.push(handle);
  return handle;
}

describe("subagent override repository", () => {
  it("sets, replaces, lists per context and deletes overrides", async () => {
    const { db } = await database();
    await setSubagentOverride(db, { agentKey: "a", scope: "global", scopeId: "", model: "g/1", now: 1 });
    await setSubagentOverride(db, { agentKey: "a", scope: "project", scopeId: "p1", model: "p/1", now: 2 });
    await setSubagentOverride(db, { agentKey: "a", scope: "project", scopeId: "p2", model: "p/2", now: 3 });
    await setSubagentOverride(db, { agentKey: "a", scope: "session", scopeId: "/s1.jsonl", model: "s/1", now: 4 });
    await setSubagentOverride(db, { agentKey: "b", scope: "session", scopeId: "/s2.jsonl", model: "s/2", now: 5 });
    await setSubagentOverride(db, { agentKey: "a", scope: "global", scopeId: "", model: "g/2", now: 6 });

    expect(await listSubagentOverrides(db, { projectId: "p1", sessionFile: "/s1.jsonl" })).toEqual({
      a: { global: "g/2", project: "p/1", session: "s/1" },
    });
    expect(await listSubagentOverrides(db, { projectId: "p2", sessionFile: null })).toEqual({ a: { global: "g/2", project: "p/2" } });
    expect(await listSubagentOverrides(db, { projectId: "p3", sessionFile: "/s2.jsonl" })).toEqual({
      a: { global: "g/2" },
      b: { session: "s/2" },
    });
    expect(await subagentOverridesOf(db, "b", { projectId: "p1", sessionFile: "/s1.jsonl" })).toEqual({});
    const row = await db
      .selectFrom("subagent_model_overrides")
      .selectAll()
      .where("agent_key", "=", "a")
      .where("scope", "=", "global")
      .executeTakeFirst();
    expect(row).toEqual({ agent_key: "a", scope: "global", scope_id: "", model: "g/2", updated_at: 6 });

    expect(await deleteSubagentOverride(db, { agentKey: "a", scope: "project", scopeId: "p1" })).toBe(true);
    expect(await deleteSubagentOverride(db, { agentKey: "a", scope: "project", scopeId: "p1" })).toBe(false);
    expect(await subagentOverridesOf(db, "a", { projectId: "p1", sessionFile: "/s1.jsonl" })).toEqual({ global: "g/2", session: "s/1" });
  });

  it("refuses a scope outside global, project and session", async () => {
    const { db } = await database();
    await expect(
      sql`insert into subagent_model_overrides (agent_key, scope, scope_id, model, updated_at) values ('a', 'team', '', 'm', 1)`.execute(
        db,
      ),
    ).rejects.toThrow(/CHECK constraint/);
  });

  it("copies a session's overrides to another session, replacing the target's for the same agent", async () => {
    const { db } = await database();
    await setSubagentOverride(db, { agentKey: "a", scope: "session", scopeId: "/from", model: "m/a" });
    await setSubagentOverride(db, { agentKey: "b", scope: "session", scopeId: "/from", model: "m/b" });
    await setSubagentOverride(db, { agentKey: "a", scope: "session", scopeId: "/to", model: "old" });
    await setSubagentOverride(db, { agentKey: "c", scope: "session", scopeId: "/to", model: "kept" });
    expect(await copySessionOverrides(db, "/from", "/to")).toBe(2);
    expect(await listSubagentOverrides(db, { projectId: "-", sessionFile: "/to" })).toEqual({
      a: { session: "m/a" },
      b: { session: "m/b" },
      c: { session: "kept" },
    });
  });

  it("migration 0002 goes down (table dropped) and up again", async () => {
    const { db } = await database();
    const migrator = new Migrator({ db, provider: leylineMigrationProvider });
    const tables = async () => (await db.introspection.getTables()).map((t) => t.name).sort();
    expect(await tables()).toContain("subagent_model_overrides");
    const down = await migrator.migrateTo("0001-projection-checkpoints");
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => [r.migrationName, r.direction, r.status])).toContainEqual([
      "0002-subagent-overrides",
      "Down",
      "Success",
    ]);
    expect(await tables()).not.toContain("subagent_model_overrides");
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await setSubagentOverride(db, { agentKey: "a", scope: "global", scopeId: "", model: "m" });
    expect(await subagentOverridesOf(db, "a", { projectId: "p", sessionFile: null })).toEqual({ global: "m" });
  });

  it("keeps overrides when the database is reopened", async () => {
    const dataDir = tempDir("overrides-db");
    const first = await openLeylineDatabase({ dataDir });
    await setSubagentOverride(first.db, { agentKey: "a", scope: "global", scopeId: "", model: "g/1" });
    await first.close();
    const second = await database(dataDir);
    expect(await subagentOverridesOf(second.db, "a", { projectId: "p", sessionFile: null })).toEqual({ global: "g/1" });
  });
});

describe("resolveSubagentContext", () => {
  it("uses the nearest folder with .git as the project, with a stable id and its name", () => {
    const root = fs.realpathSync(tempDir("context"));
    const project = path.join(root, "my-app");
    const cwd = path.join(project, "packages", "core");
    fs.mkdirSync(cwd, { recursive: true });
    fs.mkdirSync(path.join(project, ".git"));
    const context = resolveSubagentContext({ cwd });
    expect(context).toEqual({
      cwd,
      projectId: projectIdOf(project),
      projectName: "my-app",
      projectRoot: project,
      sessionAvailable: false,
      sessionFile: null,
      sessionId: null,
    });
    expect(context.projectId).toMatch(/^[0-9a-f]{16}$/);
    // The same project through a symlink, and from its root: same id.
    fs.symlinkSync(project, path.join(root, "link"));
    expect(resolveSubagentContext({ cwd: path.join(root, "link", "packages") }).projectId).toBe(context.projectId);
    expect(resolveSubagentContext({ cwd: project }).projectId).toBe(context.projectId);
  });

  it("uses the cwd itself without a .git folder above it", () => {
    const root = fs.realpathSync(tempDir("context"));
    const cwd = path.join(root, "plain");
    fs.mkdirSync(cwd);
    const context = resolveSubagentContext({ cwd });
    expect(context.projectRoot).toBe(cwd);
    expect(context.projectName).toBe("plain");
    expect(context.projectId).not.toBe(resolveSubagentContext({ cwd: root }).projectId);
  });

  it("takes the session id from the file's header, or from sessionIdOf for a file not written yet", () => {
    const root = fs.realpathSync(tempDir("context"));
    const file = path.join(root, "s.jsonl");
    fs.writeFileSync(file, headerLine("session-42", root));
    expect(resolveSubagentContext({ cwd: root, sessionPath: file })).toMatchObject({
      sessionAvailable: true,
      sessionFile: file,
      sessionId: "session-42",
    });
    const unwritten = path.join(root, "later.jsonl");
    expect(resolveSubagentContext({ cwd: root, sessionPath: unwritten })).toMatchObject({ sessionFile: unwritten, sessionId: null });
    const known = resolveSubagentContext({ cwd: root, sessionPath: unwritten, sessionIdOf: (f) => (f === unwritten ? "live" : null) });
    expect(known.sessionId).toBe("live");
    expect(resolveSubagentContext({ cwd: root, sessionPath: "  " }).sessionAvailable).toBe(false);
  });

  it("canonical paths resolve symlinks in the existing part of a path", () => {
    const root = fs.realpathSync(tempDir("context"));
    fs.mkdirSync(path.join(root, "real"));
    fs.symlinkSync(path.join(root, "real"), path.join(root, "alias"));
    expect(canonicalPath(path.join(root, "alias", "missing", "f.jsonl"))).toBe(path.join(root, "real", "missing", "f.jsonl"));
  });
});

describe("resolveSubagentSettings", () => {
  function setup() {
    const root = fs.realpathSync(tempDir("settings"));
    const agentDir = path.join(root, "agent");
    fs.mkdirSync(path.join(agentDir, "agents"), { recursive: true });
    const file = path.join(agentDir, "agents", "helper.md");
    fs.writeFileSync(file, "---\nname: helper\ndescription: Helps\nmodel: def/model\nthinking: medium\n---\nHelp.\n");
    fs.writeFileSync(path.join(agentDir, "agents", "researcher.md"), "---\nname: researcher\ndescription: Fake\nmodel: fake/model\n---\n");
    const cwd = path.join(root, "project");
    fs.mkdirSync(cwd);
    return { agentDir, cwd, key: `user:${file}#helper`, session: path.join(root, "s.jsonl") };
  }

  it("applies session, project, global overrides in that order, then the static model, else the definition's", async () => {
    const s = setup();
    const { db } = await database();
    const base = { agentDir: s.agentDir, cwd: s.cwd, sessionPath: s.session };
    expect(await resolveSubagentSettings(db, { ...base, agentName: "helper" })).toMatchObject({
      model: "def/model",
      modelSource: "definition",
      thinking: "medium",
      thinkingSource: "definition",
    });
    expect(await resolveSubagentSettings(db, { ...base, agentKey: s.key, staticModel: "static/m", staticThinking: "high" })).toMatchObject({
      model: "static/m",
      modelSource: "definition",
      thinking: "high",
    });
    const context = resolveSubagentContext(base);
    await setSubagentOverride(db, { agentKey: s.key, scope: "global", scopeId: "", model: "g/m" });
    expect((await resolveSubagentSettings(db, { ...base, agentKey: s.key }))?.model).toBe("g/m");
    await setSubagentOverride(db, { agentKey: s.key, scope: "project", scopeId: context.projectId, model: "p/m" });
    expect((await resolveSubagentSettings(db, { ...base, agentKey: s.key }))?.model).toBe("p/m");
    await setSubagentOverride(db, { agentKey: s.key, scope: "session", scopeId: context.sessionFile ?? "", model: "s/m" });
    const resolved = await resolveSubagentSettings(db, { ...base, agentKey: s.key, staticModel: "static/m" });
    expect(resolved).toMatchObject({ model: "s/m", modelSource: "session", thinking: "medium" });
    expect(resolved?.agent).toMatchObject({ name: "helper", source: "user", systemPrompt: "Help." });
    // Without the session, its override does not apply.
    expect(await resolveSubagentSettings(db, { agentDir: s.agentDir, cwd: s.cwd, agentKey: s.key })).toMatchObject({
      model: "p/m",
      modelSource: "project",
    });
  });

  it("runs the built-in researcher by name or key, whatever the files say, without overrides", async () => {
    const s = setup();
    const { db } = await database();
    await setSubagentOverride(db, { agentKey: RESEARCHER_AGENT_KEY, scope: "global", scopeId: "", model: "never/used" });
    const byName = await resolveSubagentSettings(db, {
      agentDir: s.agentDir,
      cwd: s.cwd,
      agentName: "researcher",
      staticModel: "parent/m",
    });
    expect(byName).toMatchObject({ model: "parent/m", modelSource: "definition", thinkingSource: "definition" });
    expect(byName?.agent).toBe(RESEARCHER_AGENT);
    const byKey = await resolveSubagentSettings(db, { agentDir: s.agentDir, cwd: s.cwd, agentKey: RESEARCHER_AGENT_KEY });
    expect(byKey?.agent).toBe(RESEARCHER_AGENT);
    expect(byKey).not.toHaveProperty("model");
  });

  it("is null for an unknown key or name", async () => {
    const s = setup();
    const { db } = await database();
    expect(await resolveSubagentSettings(db, { agentDir: s.agentDir, cwd: s.cwd, agentKey: "user:/nope.md#nope" })).toBeNull();
    expect(await resolveSubagentSettings(db, { agentDir: s.agentDir, cwd: s.cwd, agentName: "nope" })).toBeNull();
    expect(await resolveSubagentSettings(db, { agentDir: s.agentDir, cwd: s.cwd })).toBeNull();
  });
});
