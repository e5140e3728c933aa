import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EDITOR_TOO_LONG } from "../../domain/file-links/editor-command.ts";
import { fileLinkDirs, writeArgvRecorder } from "./file-links.fixture.ts";
import { editorSetup, FILE_SETTINGS_FILE, fileSettingsOf, FileSettingsRejection, saveFileSettings } from "./file-settings-store.ts";

function setup(env: NodeJS.ProcessEnv = {}) {
  const dirs = fileLinkDirs("file-settings");
  // A PATH with only the test's bin folder: what is "found" is what the test put there.
  return { dirs, services: { dataDir: dirs.dataDir, env: { PATH: dirs.bin, ...env } } };
}

describe("Files settings store", () => {
  it("reads a missing file as the defaults and writes nothing", async () => {
    const { dirs, services } = setup();
    expect(await fileSettingsOf(services)).toEqual({
      editor: "",
      environmentEditor: "",
      effectiveEditor: "",
      editorMode: "auto",
      terminalEditor: false,
      revealLabel: null,
    });
    expect(fs.existsSync(dirs.dataDir)).toBe(false);
  });

  it("takes EDITOR, then VISUAL, and says when the program is not on PATH", async () => {
    const { dirs, services } = setup({ VISUAL: "vim" });
    expect(await fileSettingsOf(services)).toMatchObject({
      environmentEditor: "vim",
      effectiveEditor: "vim",
      terminalEditor: true,
      error: 'The editor "vim" was not found on the server\'s PATH',
    });
    writeArgvRecorder(dirs.bin, "vim", path.join(dirs.root, "unused"));
    const found = await editorSetup(services);
    expect(found.settings.error).toBeUndefined();
    expect(found.executable).toBe(path.join(dirs.bin, "vim"));
    expect(found.terminal).toBe(true);
  });

  it("saves atomically, keeps omitted fields, trims, and an empty command falls back to EDITOR", async () => {
    const { dirs, services } = setup({ EDITOR: "nano" });
    const editor = writeArgvRecorder(dirs.bin, "my-editor", path.join(dirs.root, "unused"));
    const saved = await saveFileSettings(services, { editor: `  ${editor} --new-window  ` });
    expect(saved).toMatchObject({
      editor: `${editor} --new-window`,
      effectiveEditor: `${editor} --new-window`,
      editorMode: "auto",
      terminalEditor: false,
    });
    expect(saved.error).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(path.join(dirs.dataDir, FILE_SETTINGS_FILE), "utf8"))).toEqual({
      version: 1,
      editor: `${editor} --new-window`,
      editorMode: "auto",
    });
    expect(await saveFileSettings(services, { editorMode: "terminal" })).toMatchObject({
      editor: `${editor} --new-window`,
      editorMode: "terminal",
      terminalEditor: true,
    });
    expect(await saveFileSettings(services, { editor: "" })).toMatchObject({ editor: "", effectiveEditor: "nano", editorMode: "terminal" });
    expect(fs.readdirSync(dirs.dataDir)).toEqual([FILE_SETTINGS_FILE]);
  });

  it("saves a command whose program is missing, with the error", async () => {
    const { services } = setup();
    expect(await saveFileSettings(services, { editor: "/nonexistent/editor" })).toMatchObject({
      editor: "/nonexistent/editor",
      error: "The editor /nonexistent/editor is not an executable file",
    });
  });

  it("refuses an invalid command and writes nothing", async () => {
    const { dirs, services } = setup();
    await expect(saveFileSettings(services, { editor: "vim; rm -rf ~" })).rejects.toBeInstanceOf(FileSettingsRejection);
    await expect(saveFileSettings(services, { editor: "x".repeat(4097) })).rejects.toThrow(EDITOR_TOO_LONG);
    expect(fs.existsSync(path.join(dirs.dataDir, FILE_SETTINGS_FILE))).toBe(false);
  });

  it("reports a corrupt file, leaves it alone, and keeps a copy when a save replaces it", async () => {
    const { dirs, services } = setup();
    fs.mkdirSync(dirs.dataDir, { recursive: true });
    const file = path.join(dirs.dataDir, FILE_SETTINGS_FILE);
    fs.writeFileSync(file, "{ broken");
    const read = await fileSettingsOf(services);
    expect(read).toMatchObject({ editor: "", editorMode: "auto" });
    expect(read.error).toBe(
      `The Files settings file ${file} is not usable (it is not valid JSON); the defaults apply until the settings are saved`,
    );
    expect(fs.readFileSync(file, "utf8")).toBe("{ broken");

    const saved = await saveFileSettings(services, { editorMode: "desktop" });
    expect(saved.error).toBeUndefined();
    expect(saved.editorMode).toBe("desktop");
    const trash = fs.readdirSync(path.join(dirs.dataDir, "leyline-trash"));
    expect(trash).toHaveLength(1);
    expect(fs.readFileSync(path.join(dirs.dataDir, "leyline-trash", trash[0] ?? ""), "utf8")).toBe("{ broken");
  });

  it("runs concurrent saves one after the other", async () => {
    const { services } = setup();
    await Promise.all([saveFileSettings(services, { editor: "vim" }), saveFileSettings(services, { editorMode: "desktop" })]);
    expect(await fileSettingsOf(services)).toMatchObject({ editor: "vim", editorMode: "desktop" });
  });
});
