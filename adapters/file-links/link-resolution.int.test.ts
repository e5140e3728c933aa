import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LINK_NETWORK_PATH, LINK_WINDOWS_PATH } from "../../domain/file-links/file-href.ts";
import { fileLinkDirs, type FileLinkDirs } from "./file-links.fixture.ts";
import { FILE_NOT_FOUND, NOT_A_REGULAR_FILE, resolveFileLink, type ResolvedFileLink } from "./link-resolution.ts";

let dirs: FileLinkDirs;

beforeAll(() => {
  dirs = fileLinkDirs("link-resolution");
  const { project, outside, home } = dirs;
  fs.mkdirSync(path.join(project, "src", "docs"), { recursive: true });
  fs.writeFileSync(path.join(project, "src", "app.ts"), "export {};\n");
  fs.writeFileSync(path.join(project, "src", "docs", "guide.md"), "# Guide\n");
  fs.writeFileSync(path.join(project, "notes:12"), "a file whose name ends in :12\n");
  fs.writeFileSync(path.join(project, "notes"), "plain notes\n");
  fs.writeFileSync(path.join(project, "my notes.md"), "spaces\n");
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside\n");
  fs.writeFileSync(path.join(home, "todo.md"), "home\n");
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(project, "link-out.txt"));
  fs.symlinkSync(path.join(project, "src", "app.ts"), path.join(project, "link-in.ts"));
  fs.symlinkSync(outside, path.join(project, "outside-folder"));
  fs.symlinkSync(path.join(project, "gone.txt"), path.join(project, "broken.txt"));
});

/** The resolution without its internal identity (checked on its own below). */
function withoutIdentity(resolved: ResolvedFileLink): Omit<ResolvedFileLink, "identity"> {
  const { identity: _identity, ...rest } = resolved;
  return rest;
}

async function resolve(href: string, basePath?: string) {
  return withoutIdentity(
    await resolveFileLink({ cwd: dirs.project, href, home: dirs.home, ...(basePath !== undefined ? { basePath } : {}) }),
  );
}

describe("resolveFileLink", () => {
  it("resolves relative, absolute and file: links inside the project", async () => {
    const file = path.join(dirs.project, "src", "app.ts");
    expect(await resolve("src/app.ts")).toEqual({ path: file, outsideProject: false });
    expect(await resolve(file)).toEqual({ path: file, outsideProject: false });
    expect(await resolve(`file://${file}`)).toEqual({ path: file, outsideProject: false });
    expect(await resolve("./src/../src/app.ts:3:7")).toEqual({ path: file, line: 3, column: 7, outsideProject: false });
    expect(await resolve("src/app.ts#L2-L4")).toEqual({ path: file, line: 2, endLine: 4, outsideProject: false });
  });

  it("lets a file named with a :line suffix win over the suffix reading", async () => {
    expect(await resolve("notes:12")).toEqual({ path: path.join(dirs.project, "notes:12"), outsideProject: false });
    expect(await resolve("notes:13")).toEqual({ path: path.join(dirs.project, "notes"), line: 13, outsideProject: false });
  });

  it("decodes a percent-encoded name when the literal one does not exist", async () => {
    expect(await resolve("my%20notes.md#intro")).toEqual({
      path: path.join(dirs.project, "my notes.md"),
      anchor: "intro",
      outsideProject: false,
    });
  });

  it("resolves from the folder of basePath, and a bare fragment to basePath itself", async () => {
    const guide = path.join(dirs.project, "src", "docs", "guide.md");
    expect(await resolve("../app.ts", "src/docs/guide.md")).toEqual({
      path: path.join(dirs.project, "src", "app.ts"),
      outsideProject: false,
    });
    expect(await resolve("../app.ts", guide)).toEqual({ path: path.join(dirs.project, "src", "app.ts"), outsideProject: false });
    expect(await resolve("#L3", guide)).toEqual({ path: guide, line: 3, outsideProject: false });
    expect(await resolve("#L3", "")).toMatchObject({ error: FILE_NOT_FOUND });
    expect(await resolve("#L3")).toMatchObject({ path: path.join(dirs.project, "#L3"), error: FILE_NOT_FOUND });
  });

  it("resolves symlinks: a link inside the project to a file outside is outside", async () => {
    expect(await resolve("link-out.txt")).toEqual({ path: path.join(dirs.outside, "secret.txt"), outsideProject: true });
    expect(await resolve("outside-folder/secret.txt")).toEqual({ path: path.join(dirs.outside, "secret.txt"), outsideProject: true });
    expect(await resolve("link-in.ts")).toEqual({ path: path.join(dirs.project, "src", "app.ts"), outsideProject: false });
    expect(await resolve(path.join(dirs.outside, "secret.txt"))).toEqual({
      path: path.join(dirs.outside, "secret.txt"),
      outsideProject: true,
    });
  });

  it("judges the project by its canonical folder when the cwd is a symlink", async () => {
    const alias = path.join(dirs.root, "project-alias");
    if (!fs.existsSync(alias)) fs.symlinkSync(dirs.project, alias);
    const resolved = withoutIdentity(await resolveFileLink({ cwd: alias, href: "src/app.ts", home: dirs.home }));
    expect(resolved).toEqual({ path: path.join(dirs.project, "src", "app.ts"), outsideProject: false });
  });

  it("records the identity of the checked file (dev and ino of the canonical path), and none with an error", async () => {
    const target = fs.lstatSync(path.join(dirs.outside, "secret.txt"), { bigint: true });
    const viaLink = await resolveFileLink({ cwd: dirs.project, href: "link-out.txt", home: dirs.home });
    expect(viaLink.identity).toEqual({ dev: target.dev, ino: target.ino });
    const missing = await resolveFileLink({ cwd: dirs.project, href: "src/missing.ts", home: dirs.home });
    expect(missing.identity).toBeUndefined();
    const folder = await resolveFileLink({ cwd: dirs.project, href: "src", home: dirs.home });
    expect(folder).toMatchObject({ error: NOT_A_REGULAR_FILE });
    expect(folder.identity).toBeUndefined();
  });

  it("expands ~/ to the home folder", async () => {
    expect(await resolve("~/todo.md")).toEqual({ path: path.join(dirs.home, "todo.md"), outsideProject: true });
  });

  it("answers missing files, folders, broken links and refused links as errors", async () => {
    expect(await resolve("src/missing.ts:4")).toEqual({
      path: path.join(dirs.project, "src", "missing.ts"),
      line: 4,
      outsideProject: false,
      error: FILE_NOT_FOUND,
    });
    expect(await resolve("src")).toEqual({ path: path.join(dirs.project, "src"), outsideProject: false, error: NOT_A_REGULAR_FILE });
    expect(await resolve("broken.txt")).toMatchObject({ error: FILE_NOT_FOUND });
    expect(await resolve("//server/share/a.txt")).toMatchObject({ error: LINK_NETWORK_PATH });
    expect(await resolve("C:\\work\\a.txt")).toMatchObject({ error: LINK_WINDOWS_PATH });
    expect(await resolve("src/app.ts/x")).toMatchObject({ error: FILE_NOT_FOUND });
    expect(await resolve(`${"a".repeat(5000)}.md`)).toMatchObject({ error: FILE_NOT_FOUND });
  });
});
