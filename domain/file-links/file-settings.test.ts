import { describe, expect, it } from "vitest";
import { EDITOR_RELATIVE_PROGRAM } from "./editor-command.ts";
import {
  DEFAULT_FILE_SETTINGS,
  editorCommandState,
  effectiveEditorOf,
  environmentEditorOf,
  NO_EDITOR,
  parseStoredFileSettings,
  revealLabelFor,
  serializeFileSettings,
} from "./file-settings.ts";
import { APPROVED_PATH_MISSING, approvalOf, FILE_MOVED, isInsideProject } from "./project-scope.ts";

describe("stored Files settings", () => {
  it("round-trips and ignores unknown fields", () => {
    const stored = { editor: "code --wait", editorMode: "desktop" } as const;
    expect(parseStoredFileSettings(serializeFileSettings(stored))).toEqual({ settings: stored });
    expect(parseStoredFileSettings('{"version":1,"editor":"vim","future":true}')).toEqual({
      settings: { editor: "vim", editorMode: "auto" },
    });
  });

  it("reports what is wrong and uses the defaults", () => {
    expect(parseStoredFileSettings("{not json")).toEqual({ settings: DEFAULT_FILE_SETTINGS, problem: "it is not valid JSON" });
    expect(parseStoredFileSettings("[]")).toEqual({ settings: DEFAULT_FILE_SETTINGS, problem: "it is not a JSON object" });
    expect(parseStoredFileSettings('{"editor":3}').problem).toBe("its editor is not a string");
    expect(parseStoredFileSettings('{"editorMode":"gui"}').problem).toBe("its editorMode is not auto, desktop or terminal");
  });
});

describe("the effective editor", () => {
  it("takes the stored command, then EDITOR, then VISUAL", () => {
    expect(environmentEditorOf({ EDITOR: " vim ", VISUAL: "code" })).toBe("vim");
    expect(environmentEditorOf({ EDITOR: "", VISUAL: "code" })).toBe("code");
    expect(environmentEditorOf({})).toBe("");
    expect(effectiveEditorOf("  hx ", "vim")).toBe("hx");
    expect(effectiveEditorOf("   ", "vim")).toBe("vim");
  });

  it("judges the effective command", () => {
    expect(editorCommandState({ editor: "", editorMode: "auto" }, "")).toEqual({
      effectiveEditor: "",
      argv: null,
      terminal: false,
      problem: NO_EDITOR,
    });
    expect(editorCommandState({ editor: "", editorMode: "auto" }, "nvim -p")).toEqual({
      effectiveEditor: "nvim -p",
      argv: ["nvim", "-p"],
      terminal: true,
      problem: null,
    });
    expect(editorCommandState({ editor: "code", editorMode: "terminal" }, "").terminal).toBe(true);
    expect(editorCommandState({ editor: "", editorMode: "auto" }, "bin/edit").problem).toBe(EDITOR_RELATIVE_PROGRAM);
  });
});

describe("revealLabelFor", () => {
  it("names the platform's reveal, on Linux only with an opener and a desktop session", () => {
    expect(revealLabelFor("darwin", { opener: false, desktopSession: false })).toBe("Reveal in Finder");
    expect(revealLabelFor("win32", { opener: false, desktopSession: false })).toBe("Show in Explorer");
    expect(revealLabelFor("linux", { opener: true, desktopSession: true })).toBe("Show in folder");
    expect(revealLabelFor("linux", { opener: true, desktopSession: false })).toBeNull();
    expect(revealLabelFor("linux", { opener: false, desktopSession: true })).toBeNull();
  });
});

describe("project scope and approval", () => {
  it("compares whole path segments", () => {
    expect(isInsideProject("/work/app/src/a.ts", "/work/app")).toBe(true);
    expect(isInsideProject("/work/app", "/work/app")).toBe(true);
    expect(isInsideProject("/work/app-other/a.ts", "/work/app")).toBe(false);
    expect(isInsideProject("/etc/hosts", "/")).toBe(true);
  });

  it("needs approval outside the project until the approved path is the one found now", () => {
    expect(approvalOf({ path: "/etc/hosts", outsideProject: false })).toEqual({ needsApproval: false });
    expect(approvalOf({ path: "/etc/hosts", outsideProject: true })).toEqual({ needsApproval: true });
    expect(approvalOf({ path: "/etc/hosts", outsideProject: true, allowOutsideProject: false, approvedPath: "/etc/hosts" })).toEqual({
      needsApproval: true,
    });
    expect(approvalOf({ path: "/etc/hosts", outsideProject: true, allowOutsideProject: true, approvedPath: "/etc/hosts" })).toEqual({
      needsApproval: false,
    });
    expect(approvalOf({ path: "/etc/hosts", outsideProject: true, allowOutsideProject: true, approvedPath: "/etc/passwd" })).toEqual({
      needsApproval: true,
      error: FILE_MOVED,
    });
    expect(approvalOf({ path: "/etc/hosts", outsideProject: true, allowOutsideProject: true })).toEqual({
      needsApproval: true,
      error: APPROVED_PATH_MISSING,
    });
  });
});
