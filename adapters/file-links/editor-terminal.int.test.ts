/**
 * prepareEditorTerminal over a real app's session lookup (read side + runtime host from testApp), a real session
 * file whose cwd is a temp project, real files and symlinks, and editor programs on a test PATH.
 */
import { EDITOR_LINE_MESSAGE } from "../../domain/contract/terminal-socket.ts";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeTestApps, testApp, testDirs } from "../../api/app.fixture.ts";
import { NO_TERMINAL_EDITOR } from "../../domain/file-links/file-settings.ts";
import { FILE_MOVED } from "../../domain/file-links/project-scope.ts";
import { EDITOR_PATH_NOT_ABSOLUTE, OUTSIDE_PROJECT_NEEDS_APPROVAL, prepareEditorTerminal } from "./editor-terminal.ts";
import type { FileLinkServices } from "./file-link-services.ts";
import { saveFileSettings } from "./file-settings-store.ts";
import { fileLinkDirs, type FileLinkDirs, writeArgvRecorder } from "./file-links.fixture.ts";
import { FILE_NOT_FOUND, NOT_A_REGULAR_FILE } from "./link-resolution.ts";

const SESSION_ID = "7d3c1a52-0b7e-4f11-9a55-2f1e7c0e6b01";

let dirs: FileLinkDirs;
let services: FileLinkServices;
let vim: string;

beforeAll(async () => {
  dirs = fileLinkDirs("editor-terminal");
  const appDirs = testDirs("editor-terminal");
  const header = { type: "session", version: 3, id: SESSION_ID, timestamp: "2026-01-01T00:00:00.000Z", cwd: dirs.project };
  fs.writeFileSync(path.join(appDirs.projectSessions, "session.jsonl"), `${JSON.stringify(header)}\n`);
  const { app } = await testApp({ dataDir: dirs.dataDir }, { ...appDirs, dataDir: dirs.dataDir });
  vim = writeArgvRecorder(dirs.bin, "vim", path.join(dirs.root, "unused"));
  writeArgvRecorder(dirs.bin, "code", path.join(dirs.root, "unused"));
  services = { readSide: app.leyline.readSide, host: app.leyline.host, dataDir: dirs.dataDir, env: { PATH: dirs.bin, EDITOR: "vim -p" } };
  fs.mkdirSync(path.join(dirs.project, "src"));
  fs.writeFileSync(path.join(dirs.project, "src", "a.ts"), "export {};\n");
  fs.writeFileSync(path.join(dirs.outside, "o.txt"), "outside\n");
  fs.symlinkSync(path.join(dirs.project, "src", "a.ts"), path.join(dirs.project, "alias.ts"));
});

afterAll(closeTestApps);

describe("prepareEditorTerminal", () => {
  it("answers the argv of the terminal editor at the line, in the session's cwd", async () => {
    const file = path.join(dirs.project, "src", "a.ts");
    expect(
      await prepareEditorTerminal(services, { sessionId: SESSION_ID, editorPath: file, editorLine: 12, allowOutsideProject: false }),
    ).toEqual({
      ok: true,
      file: vim,
      args: ["-p", "+12", file],
      cwd: dirs.project,
      shell: vim,
      editorPath: file,
    });
    expect(await prepareEditorTerminal(services, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: false })).toMatchObject({
      ok: true,
      args: ["-p", file],
    });
  });

  it("needs the approval for a file outside the project", async () => {
    const file = path.join(dirs.outside, "o.txt");
    expect(await prepareEditorTerminal(services, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: false })).toEqual({
      ok: false,
      error: OUTSIDE_PROJECT_NEEDS_APPROVAL,
    });
    expect(await prepareEditorTerminal(services, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: true })).toMatchObject({
      ok: true,
      editorPath: file,
    });
  });

  it("refuses a path that is not canonical, relative, missing or not a file, and a bad line", async () => {
    const refusal = (editorPath: string, editorLine?: number) =>
      prepareEditorTerminal(services, {
        sessionId: SESSION_ID,
        editorPath,
        allowOutsideProject: true,
        ...(editorLine !== undefined ? { editorLine } : {}),
      });
    expect(await refusal(path.join(dirs.project, "alias.ts"))).toEqual({ ok: false, error: FILE_MOVED });
    expect(await refusal(`${dirs.project}/src/../src/a.ts`)).toEqual({ ok: false, error: FILE_MOVED });
    expect(await refusal("src/a.ts")).toEqual({ ok: false, error: EDITOR_PATH_NOT_ABSOLUTE });
    expect(await refusal(path.join(dirs.project, "missing.ts"))).toEqual({ ok: false, error: FILE_NOT_FOUND });
    expect(await refusal(path.join(dirs.project, "src"))).toEqual({ ok: false, error: NOT_A_REGULAR_FILE });
    expect(await refusal(path.join(dirs.project, "src", "a.ts"), 0)).toEqual({ ok: false, error: EDITOR_LINE_MESSAGE });
    expect(await refusal(path.join(dirs.project, "src", "a.ts"), 1.5)).toEqual({ ok: false, error: EDITOR_LINE_MESSAGE });
  });

  it("refuses an unknown session and a missing or desktop editor", async () => {
    const file = path.join(dirs.project, "src", "a.ts");
    expect(await prepareEditorTerminal(services, { sessionId: "no-such-session", editorPath: file, allowOutsideProject: false })).toEqual({
      ok: false,
      error: "Session not found",
    });
    const noEditor = { ...services, env: { PATH: dirs.bin } };
    expect(await prepareEditorTerminal(noEditor, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: false })).toEqual({
      ok: false,
      error: NO_TERMINAL_EDITOR,
    });
    const desktop = { ...services, env: { PATH: dirs.bin, EDITOR: "code" } };
    expect(await prepareEditorTerminal(desktop, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: false })).toEqual({
      ok: false,
      error: NO_TERMINAL_EDITOR,
    });
    const missing = { ...services, env: { PATH: dirs.bin, EDITOR: "nvim" } };
    expect(await prepareEditorTerminal(missing, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: false })).toEqual({
      ok: false,
      error: 'The editor "nvim" was not found on the server\'s PATH',
    });
    // editorMode "terminal" makes any editor a terminal editor.
    await saveFileSettings(desktop, { editorMode: "terminal" });
    expect(await prepareEditorTerminal(desktop, { sessionId: SESSION_ID, editorPath: file, allowOutsideProject: false })).toMatchObject({
      ok: true,
      file: path.join(dirs.bin, "code"),
      args: [file],
    });
  });
});
