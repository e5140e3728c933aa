import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestApps, testApp, testDirs } from "./app.fixture.ts";
import type { DirectoryListing } from "../domain/directory-listing.ts";

afterEach(closeTestApps);

function tree(): ReturnType<typeof testDirs> & { project: string } {
  const dirs = testDirs("fs");
  fs.mkdirSync(path.join(dirs.home, "b-dir"));
  fs.mkdirSync(path.join(dirs.home, "A-dir"));
  fs.mkdirSync(path.join(dirs.home, ".hidden"));
  fs.writeFileSync(path.join(dirs.home, "file.txt"), "x");
  fs.symlinkSync(path.join(dirs.home, "b-dir"), path.join(dirs.home, "link-to-b"));
  fs.symlinkSync(path.join(dirs.home, "nowhere"), path.join(dirs.home, "broken-link"));
  const project = path.join(dirs.home, "b-dir", "project");
  fs.mkdirSync(path.join(project, "src"), { recursive: true });
  return { ...dirs, project };
}

describe("GET /api/pi/fs", () => {
  it("lists the home directory's directories by default, with hidden flags, entries equal to directories", async () => {
    const dirs = tree();
    const { app } = await testApp({}, dirs);
    const res = await app.inject({ method: "GET", url: "/api/pi/fs" });
    expect(res.statusCode).toBe(200);
    const listing = res.json<DirectoryListing>();
    expect(listing.path).toBe(dirs.home);
    expect(listing.home).toBe(dirs.home);
    expect(listing.parent).toBe(path.dirname(dirs.home));
    expect(listing.parentPath).toBe(path.dirname(dirs.home));
    expect(listing.root).toBe("/");
    expect(listing.directories).toEqual([
      { name: ".hidden", fullPath: path.join(dirs.home, ".hidden"), path: path.join(dirs.home, ".hidden"), hidden: true },
      { name: "A-dir", fullPath: path.join(dirs.home, "A-dir"), path: path.join(dirs.home, "A-dir"), hidden: false },
      { name: "b-dir", fullPath: path.join(dirs.home, "b-dir"), path: path.join(dirs.home, "b-dir"), hidden: false },
      { name: "link-to-b", fullPath: path.join(dirs.home, "link-to-b"), path: path.join(dirs.home, "link-to-b"), hidden: false },
    ]);
    expect(listing.entries).toEqual(listing.directories);
  });

  it("expands ~, resolves ./ and ../ from cwd, absolute paths as they are, and / has itself as parent", async () => {
    const dirs = tree();
    const { app } = await testApp({}, dirs);
    const get = async (query: string): Promise<DirectoryListing> => {
      const res = await app.inject({ method: "GET", url: `/api/pi/fs?${query}` });
      expect(res.statusCode, query).toBe(200);
      return res.json<DirectoryListing>();
    };
    expect((await get("path=~")).path).toBe(dirs.home);
    expect((await get(`path=${encodeURIComponent("~/b-dir")}`)).path).toBe(path.join(dirs.home, "b-dir"));
    expect((await get(`path=./src&cwd=${encodeURIComponent(dirs.project)}`)).path).toBe(path.join(dirs.project, "src"));
    const up = await get(`path=..&cwd=${encodeURIComponent(dirs.project)}`);
    expect(up.path).toBe(path.join(dirs.home, "b-dir"));
    expect(up.directories.map((d) => d.name)).toEqual(["project"]);
    expect((await get(`path=${encodeURIComponent(dirs.project)}`)).directories.map((d) => d.name)).toEqual(["src"]);
    const root = await get("path=/");
    expect(root.path).toBe("/");
    expect(root.parent).toBe("/");
  });

  it("answers 500 with a message for missing directories, files, and ./ paths without cwd", async () => {
    const dirs = tree();
    const { app } = await testApp({}, dirs);
    for (const query of [
      `path=${encodeURIComponent(path.join(dirs.home, "missing"))}`,
      `path=${encodeURIComponent(path.join(dirs.home, "file.txt"))}`,
      "path=./src",
      "path=../x",
    ]) {
      const res = await app.inject({ method: "GET", url: `/api/pi/fs?${query}` });
      expect(res.statusCode, query).toBe(500);
      const body = res.json<{ error: string }>();
      expect(Object.keys(body)).toEqual(["error"]);
      expect(body.error).not.toBe("Internal server error");
    }
    expect((await app.inject({ method: "GET", url: "/api/pi/fs" })).statusCode).toBe(200);
  });
});
