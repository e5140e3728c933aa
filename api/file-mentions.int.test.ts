/**
 * GET /api/pi/sessions/:id/file-mentions over a real app and real folders: a Git repository (tracked and untracked
 * files, .gitignore respected, the index untouched) and a plain folder (a bounded walk without hidden folders and
 * node_modules); bad input answers 400, an unknown session 404, a folder that is gone (or a file) no files.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { commitAll, tempDir, tempRepo, writeFiles } from "../adapters/git-review/git-repo.fixture.ts";
import { closeTestApps, testApp, testDirs } from "./app.fixture.ts";

const ids = {
  repo: "0c5f1b7e-1d1e-4a56-9d0a-6f1c2b3d4e01",
  plain: "0c5f1b7e-1d1e-4a56-9d0a-6f1c2b3d4e02",
  gone: "0c5f1b7e-1d1e-4a56-9d0a-6f1c2b3d4e03",
  file: "0c5f1b7e-1d1e-4a56-9d0a-6f1c2b3d4e04",
};

async function appWithSessions(cwds: Record<keyof typeof ids, string>): Promise<FastifyInstance> {
  const dirs = testDirs("file-mentions");
  for (const [name, id] of Object.entries(ids)) {
    const header = { type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: cwds[name as keyof typeof ids] };
    fs.writeFileSync(path.join(dirs.projectSessions, `${name}.jsonl`), `${JSON.stringify(header)}\n`);
  }
  return (await testApp({}, dirs)).app;
}

async function mentions(app: FastifyInstance, id: string, query = "") {
  const res = await app.inject({ method: "GET", url: `/api/pi/sessions/${id}/file-mentions${query}` });
  return { status: res.statusCode, body: res.json<{ files?: string[]; truncated?: boolean; error?: string }>() };
}

afterAll(closeTestApps);

describe("@file completion", () => {
  it("lists a repository's tracked and untracked files without ignored ones, best match first, writing nothing", async () => {
    const repo = tempRepo("mentions");
    writeFiles(repo, { "src/app.ts": "a", "src/components/AppShell.vue": "b", "README.md": "c", ".gitignore": "dist/\n*.log\n" });
    commitAll(repo);
    writeFiles(repo, { "notes/app-ideas.md": "new", "dist/app.js": "built", "debug.log": "x" });
    const plain = tempDir("mentions-plain");
    writeFiles(plain, { "main.py": "x", "lib/app_util.py": "y", "node_modules/app/index.js": "z", ".hidden/app.txt": "h" });
    const index = path.join(repo, ".git", "index");
    const before = { bytes: fs.readFileSync(index), mtime: fs.statSync(index).mtimeMs };
    const app = await appWithSessions({ repo, plain, gone: path.join(plain, "no-such-folder"), file: path.join(plain, "main.py") });

    const found = await mentions(app, ids.repo, "?q=app");
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ files: ["src/app.ts", "notes/app-ideas.md", "src/components/AppShell.vue"], truncated: false });
    expect((await mentions(app, ids.repo)).body.files).toEqual([
      "README.md",
      ".gitignore",
      "src/app.ts",
      "notes/app-ideas.md",
      "src/components/AppShell.vue",
    ]);
    expect((await mentions(app, ids.repo, "?q=app&limit=1")).body.files).toEqual(["src/app.ts"]);
    expect(fs.readFileSync(index).equals(before.bytes)).toBe(true);
    expect(fs.statSync(index).mtimeMs).toBe(before.mtime);

    expect((await mentions(app, ids.plain, "?q=app")).body).toEqual({ files: ["lib/app_util.py"], truncated: false });
    expect((await mentions(app, ids.gone, "?q=app")).body).toEqual({ files: [], truncated: false });
    expect((await mentions(app, ids.file, "?q=app")).body).toEqual({ files: [], truncated: false });

    expect((await mentions(app, ids.repo, "?limit=0")).status).toBe(400);
    expect((await mentions(app, ids.repo, `?q=${"x".repeat(201)}`)).status).toBe(400);
    expect((await mentions(app, "no-such-session", "?q=app")).status).toBe(404);
  });
});
