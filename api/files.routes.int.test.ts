/**
 * The local file routes over a real app (testApp + inject), a real session file whose cwd is a temp project, real
 * files and symlinks, and real spawned programs standing in for the desktop (an editor and xdg-open that record
 * the argv they receive).
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVEAL_UNAVAILABLE } from "../adapters/file-links/file-actions.ts";
import { fileLinkDirs, type FileLinkDirs, recordedArgv, writeArgvRecorder } from "../adapters/file-links/file-links.fixture.ts";
import { FILE_NOT_FOUND } from "../adapters/file-links/link-resolution.ts";
import { LINK_NETWORK_PATH } from "../domain/file-links/file-href.ts";
import { NO_EDITOR } from "../domain/file-links/file-settings.ts";
import { PREVIEW_NOT_UTF8 } from "../domain/file-links/file-preview-rules.ts";
import { FILE_MOVED } from "../domain/file-links/project-scope.ts";
import { closeTestApps, testApp, testDirs } from "./app.fixture.ts";

const SESSION_ID = "4b8f0d2e-6c1a-4e9b-8f3d-5a7c9e1b2d40";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let dirs: FileLinkDirs;
let app: FastifyInstance;
let outFolder: string;

async function appWith(env: NodeJS.ProcessEnv): Promise<FastifyInstance> {
  const appDirs = testDirs("files-routes");
  const header = { type: "session", version: 3, id: SESSION_ID, timestamp: "2026-01-01T00:00:00.000Z", cwd: dirs.project };
  fs.writeFileSync(path.join(appDirs.projectSessions, "session.jsonl"), `${JSON.stringify(header)}\n`);
  return (await testApp({ env }, appDirs)).app;
}

function fileAction(body: Record<string, unknown>, id = SESSION_ID) {
  return app.inject({ method: "POST", url: `/api/pi/sessions/${id}/file`, payload: body });
}

function putSettings(payload: unknown) {
  return app.inject({
    method: "PUT",
    url: "/api/pi/files/settings",
    ...(typeof payload === "string" ? { payload, headers: { "content-type": "application/json" } } : { payload: payload as object }),
  });
}

beforeAll(async () => {
  dirs = fileLinkDirs("files-routes");
  outFolder = path.join(dirs.root, "out");
  fs.mkdirSync(outFolder);
  fs.mkdirSync(path.join(dirs.project, "src"));
  fs.writeFileSync(path.join(dirs.project, "src", "app.ts"), "export const answer = 42;\n");
  fs.writeFileSync(path.join(dirs.project, "a;b $HOME.md"), "# odd name\n");
  fs.writeFileSync(path.join(dirs.project, "logo.png"), PNG);
  fs.writeFileSync(path.join(dirs.project, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  fs.writeFileSync(path.join(dirs.outside, "secret.txt"), "outside\n");
  fs.symlinkSync(path.join(dirs.outside, "secret.txt"), path.join(dirs.project, "link-out.txt"));
  writeArgvRecorder(dirs.bin, "xdg-open", path.join(outFolder, "reveal"));
  writeArgvRecorder(dirs.bin, "vim", path.join(outFolder, "vim-must-not-run"));
  app = await appWith({ PATH: `${dirs.bin}:${process.env["PATH"] ?? ""}`, HOME: dirs.home, DISPLAY: ":99" });
});

afterAll(closeTestApps);

describe("GET/PUT /api/pi/files/settings", () => {
  it("answers the defaults, saves a command, and keeps omitted fields", async () => {
    const initial = await app.inject({ method: "GET", url: "/api/pi/files/settings" });
    expect(initial.statusCode).toBe(200);
    expect(initial.json()).toEqual({
      editor: "",
      environmentEditor: "",
      effectiveEditor: "",
      editorMode: "auto",
      terminalEditor: false,
      revealLabel: "Show in folder",
    });
    const saved = await putSettings({ editor: " vim -p ", ignored: true });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ editor: "vim -p", effectiveEditor: "vim -p", editorMode: "auto", terminalEditor: true });
    const mode = await putSettings({ editorMode: "desktop" });
    expect(mode.json()).toMatchObject({ editor: "vim -p", editorMode: "desktop", terminalEditor: false });
    const cleared = await putSettings({ editor: "", editorMode: "auto" });
    expect(cleared.json()).toMatchObject({ editor: "", effectiveEditor: "", editorMode: "auto" });
  });

  it("answers 400 with the current settings and the error for invalid input", async () => {
    await putSettings({ editor: "vim" });
    const cases: [unknown, string | RegExp][] = [
      [{ editor: "vim; rm -rf ~" }, /^Shell operators are not supported/],
      [{ editor: "vim $HOME" }, /^Expansions are not supported/],
      [{ editor: "vim\u0007" }, "The editor command contains a control character"],
      [{ editor: "x".repeat(4097) }, "The editor command is longer than 4,096 characters"],
      [{ editor: 5 }, "editor must be a string"],
      [{ editorMode: "gui" }, 'editorMode must be "auto", "desktop" or "terminal"'],
      ["{ not json", /JSON/],
      ["[1, 2]", "Request body must be a JSON object"],
    ];
    for (const [payload, error] of cases) {
      const res = await putSettings(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 40)).toBe(400);
      const body = res.json<Record<string, unknown>>();
      expect(body).toMatchObject({
        editor: "vim",
        effectiveEditor: "vim",
        editorMode: "auto",
        terminalEditor: true,
        revealLabel: "Show in folder",
      });
      expect(body["error"]).toMatch(error);
    }
    expect((await app.inject({ method: "GET", url: "/api/pi/files/settings" })).json()).toMatchObject({ editor: "vim" });
  });

  it("saves a missing program and says so", async () => {
    const res = await putSettings({ editor: "no-such-editor-xyz --flag" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      editor: "no-such-editor-xyz --flag",
      error: 'The editor "no-such-editor-xyz" was not found on the server\'s PATH',
    });
  });
});

describe("POST /api/pi/sessions/:id/file", () => {
  it("answers 404 for an unknown session and 400 for invalid fields", async () => {
    const unknown = await fileAction({ action: "resolve", href: "src/app.ts" }, "no-such-session");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: "Session not found" });
    const action = await fileAction({ action: "delete", href: "src/app.ts" });
    expect(action.statusCode).toBe(400);
    expect(action.json()).toEqual({ error: 'action must be "resolve", "preview", "editor" or "reveal"' });
    expect((await fileAction({ action: "resolve", href: 3 })).json()).toEqual({ error: "href must be a string" });
    expect((await fileAction({ action: "resolve" })).json()).toEqual({ error: "href must be a string" });
    expect((await fileAction({ action: "resolve", href: "a", allowOutsideProject: "yes" })).json()).toEqual({
      error: "allowOutsideProject must be a boolean",
    });
    expect((await app.inject({ method: "GET", url: `/api/pi/sessions/${SESSION_ID}/file` })).statusCode).toBe(405);
    expect((await app.inject({ method: "DELETE", url: "/api/pi/files/settings" })).statusCode).toBe(405);
  });

  it("resolves inside the project without opening a runtime", async () => {
    await putSettings({ editor: "", editorMode: "auto" });
    const res = await fileAction({ action: "resolve", href: "src/app.ts:1:14" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      path: path.join(dirs.project, "src", "app.ts"),
      line: 1,
      column: 14,
      outsideProject: false,
      needsApproval: false,
      editorAvailable: false,
      terminalEditor: false,
      revealLabel: "Show in folder",
    });
    expect(app.leyline.host.openRuntimes()).toEqual([]);
  });

  it("answers resolution failures in the descriptor with 200", async () => {
    const missing = await fileAction({ action: "preview", href: "src/missing.ts#L4" });
    expect(missing.statusCode).toBe(200);
    expect(missing.json()).toMatchObject({ path: path.join(dirs.project, "src", "missing.ts"), line: 4, error: FILE_NOT_FOUND });
    expect((await fileAction({ action: "resolve", href: "//server/x" })).json()).toMatchObject({ error: LINK_NETWORK_PATH });
    expect((await fileAction({ action: "preview", href: "latin1.txt" })).json()).toMatchObject({ error: PREVIEW_NOT_UTF8 });
  });

  it("previews text and images", async () => {
    const text = await fileAction({ action: "preview", href: `file://${dirs.project}/src/app.ts#L1` });
    expect(text.json()).toMatchObject({
      kind: "file",
      content: "export const answer = 42;\n",
      language: "typescript",
      lineCount: 1,
      size: 26,
      line: 1,
    });
    const image = await fileAction({ action: "preview", href: "logo.png" });
    expect(image.json()).toMatchObject({ kind: "image", mimeType: "image/png", data: PNG.toString("base64"), size: PNG.length });
  });

  it("needs approval outside the project, and acts only with the approved canonical path", async () => {
    const secret = path.join(dirs.outside, "secret.txt");
    const first = await fileAction({ action: "preview", href: "link-out.txt" });
    expect(first.json()).toEqual({
      path: secret,
      outsideProject: true,
      needsApproval: true,
      editorAvailable: false,
      terminalEditor: false,
      revealLabel: "Show in folder",
    });
    const approved = await fileAction({ action: "preview", href: "link-out.txt", allowOutsideProject: true, approvedPath: secret });
    expect(approved.json()).toMatchObject({ path: secret, needsApproval: false, kind: "file", content: "outside\n" });

    // The link now points elsewhere: the approval of the old path does not carry over.
    fs.writeFileSync(path.join(dirs.outside, "other.txt"), "other\n");
    fs.rmSync(path.join(dirs.project, "link-out.txt"));
    fs.symlinkSync(path.join(dirs.outside, "other.txt"), path.join(dirs.project, "link-out.txt"));
    const moved = await fileAction({ action: "preview", href: "link-out.txt", allowOutsideProject: true, approvedPath: secret });
    expect(moved.json()).toMatchObject({ path: path.join(dirs.outside, "other.txt"), needsApproval: true, error: FILE_MOVED });
    expect(moved.json()).not.toHaveProperty("content");
  });

  it("launches a desktop editor without a shell: the path and arguments arrive verbatim", async () => {
    const output = path.join(outFolder, "editor");
    const editor = writeArgvRecorder(dirs.bin, "fake editor", output);
    await putSettings({ editor: `'${editor}' '--flag=$HOME;id'`, editorMode: "auto" });
    const res = await fileAction({ action: "editor", href: "a%3Bb%20%24HOME.md:3" });
    const file = path.join(dirs.project, "a;b $HOME.md");
    expect(res.json()).toEqual({
      path: file,
      line: 3,
      outsideProject: false,
      needsApproval: false,
      editorAvailable: true,
      terminalEditor: false,
      revealLabel: "Show in folder",
      ok: true,
    });
    expect(await recordedArgv(output)).toEqual({ cwd: dirs.project, args: ["--flag=$HOME;id", file] });
  });

  it("answers terminal: true for a terminal editor and starts nothing", async () => {
    await putSettings({ editor: "vim", editorMode: "auto" });
    const res = await fileAction({ action: "editor", href: "src/app.ts:7" });
    expect(res.json()).toMatchObject({
      path: path.join(dirs.project, "src", "app.ts"),
      line: 7,
      terminalEditor: true,
      editorAvailable: true,
      terminal: true,
    });
    expect(fs.existsSync(path.join(outFolder, "vim-must-not-run"))).toBe(false);
  });

  it("says when no editor is configured or the program is missing", async () => {
    await putSettings({ editor: "" });
    expect((await fileAction({ action: "editor", href: "src/app.ts" })).json()).toMatchObject({ editorAvailable: false, error: NO_EDITOR });
    await putSettings({ editor: "/nonexistent/editor" });
    expect((await fileAction({ action: "editor", href: "src/app.ts" })).json()).toMatchObject({
      editorAvailable: false,
      error: "The editor /nonexistent/editor is not an executable file",
    });
  });

  it("reveals the file's folder with xdg-open", async () => {
    const res = await fileAction({ action: "reveal", href: "src/app.ts" });
    expect(res.json()).toMatchObject({ path: path.join(dirs.project, "src", "app.ts"), ok: true });
    expect((await recordedArgv(path.join(outFolder, "reveal"))).args).toEqual([path.join(dirs.project, "src")]);
  });
});

describe("POST /api/pi/sessions/:id/file without a desktop session", () => {
  it("answers reveal as unavailable", async () => {
    const headless = await appWith({ PATH: dirs.bin, HOME: dirs.home });
    const res = await headless.inject({
      method: "POST",
      url: `/api/pi/sessions/${SESSION_ID}/file`,
      payload: { action: "reveal", href: "src/app.ts" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ revealLabel: null, error: REVEAL_UNAVAILABLE });
  });
});
