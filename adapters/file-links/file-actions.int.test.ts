/**
 * sessionFileAction's preview against a file swapped between the check and the read, over a real app's session
 * lookup (read side + runtime host from testApp), a real session file whose cwd is a temp project, and real
 * files, symlinks and FIFOs. The swap happens deterministically in the `beforePreviewOpen` test seam: after the
 * link was resolved and approved, right before the reader opens the file.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeTestApps, testApp, testDirs } from "../../api/app.fixture.ts";
import { type FileActionRequest, sessionFileAction } from "./file-actions.ts";
import type { FileLinkServices } from "./file-link-services.ts";
import { fileLinkDirs, type FileLinkDirs } from "./file-links.fixture.ts";
import { FILE_CHANGED } from "./link-resolution.ts";

const SESSION_ID = "c2a9e4f1-58d3-4b6e-9f0a-1d7b3e5c8a24";
const SECRET = "TOPSECRET";

let dirs: FileLinkDirs;
let services: FileLinkServices;
let secret: string;

beforeAll(async () => {
  dirs = fileLinkDirs("file-actions");
  const appDirs = testDirs("file-actions");
  const header = { type: "session", version: 3, id: SESSION_ID, timestamp: "2026-01-01T00:00:00.000Z", cwd: dirs.project };
  fs.writeFileSync(path.join(appDirs.projectSessions, "session.jsonl"), `${JSON.stringify(header)}\n`);
  const { app } = await testApp({ dataDir: dirs.dataDir }, { ...appDirs, dataDir: dirs.dataDir });
  services = { readSide: app.leyline.readSide, host: app.leyline.host, dataDir: dirs.dataDir, env: { HOME: dirs.home } };
  secret = path.join(dirs.outside, "secret.txt");
  fs.writeFileSync(secret, `${SECRET}\n`);
});

afterAll(closeTestApps);

/** Replaces `file` with a symlink to `target` in one rename (as an attacker would). */
function swapForSymlink(file: string, target: string): void {
  fs.symlinkSync(target, `${file}.swap`);
  fs.renameSync(`${file}.swap`, file);
}

/** The preview of `request`, running `swap` between the check and the read; also whether `swap` ran. */
async function previewWithSwap(request: Omit<FileActionRequest, "action">, swap: () => void) {
  let swapped = false;
  const result = await sessionFileAction(
    services,
    SESSION_ID,
    { action: "preview", ...request },
    {
      beforePreviewOpen: async () => {
        swap();
        swapped = true;
      },
    },
  );
  return { result, swapped };
}

describe("sessionFileAction preview of a file swapped after the check", () => {
  it("previews the checked file when nothing is swapped, without the internal identity", async () => {
    const file = path.join(dirs.project, "plain.txt");
    fs.writeFileSync(file, "inside\n");
    const { result, swapped } = await previewWithSwap({ href: "plain.txt" }, () => {});
    expect(swapped).toBe(true);
    expect(result).toMatchObject({ path: file, outsideProject: false, needsApproval: false, kind: "file", content: "inside\n" });
    expect(result).not.toHaveProperty("identity");
    expect(result).not.toHaveProperty("error");
  });

  it("answers FILE_CHANGED, never the outside secret, for a symlink to it swapped in", async () => {
    const file = path.join(dirs.project, "race.txt");
    fs.writeFileSync(file, "inside-race\n");
    const { result, swapped } = await previewWithSwap({ href: "race.txt" }, () => swapForSymlink(file, secret));
    expect(swapped).toBe(true);
    expect(result).toEqual({
      path: file,
      outsideProject: false,
      needsApproval: false,
      editorAvailable: expect.any(Boolean),
      terminalEditor: expect.any(Boolean),
      revealLabel: expect.toSatisfy((label: unknown) => label === null || typeof label === "string"),
      error: FILE_CHANGED,
    });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("answers FILE_CHANGED for an approved outside file swapped for a symlink to another outside file", async () => {
    const approved = path.join(dirs.outside, "approved.txt");
    fs.writeFileSync(approved, "approved\n");
    const { result, swapped } = await previewWithSwap({ href: approved, allowOutsideProject: true, approvedPath: approved }, () =>
      swapForSymlink(approved, secret),
    );
    expect(swapped).toBe(true);
    expect(result).toMatchObject({ path: approved, outsideProject: true, needsApproval: false, error: FILE_CHANGED });
    expect(result).not.toHaveProperty("content");
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("answers FILE_CHANGED for a FIFO swapped in, without hanging", async () => {
    const file = path.join(dirs.project, "fifo.txt");
    fs.writeFileSync(file, "inside\n");
    const { result, swapped } = await previewWithSwap({ href: "fifo.txt" }, () => {
      fs.rmSync(file);
      execFileSync("mkfifo", [file]);
    });
    expect(swapped).toBe(true);
    expect(result).toMatchObject({ path: file, outsideProject: false, error: FILE_CHANGED });
    expect(result).not.toHaveProperty("content");
  }, 5_000);

  it.runIf(process.platform === "linux")("answers FILE_CHANGED when a folder on the way is swapped for a symlink to outside", async () => {
    const inner = path.join(dirs.project, "docs");
    fs.mkdirSync(inner);
    const file = path.join(inner, "guide.md");
    fs.writeFileSync(file, "# Guide\n");
    const moved = path.join(dirs.outside, "docs-moved");
    const { result, swapped } = await previewWithSwap({ href: "docs/guide.md" }, () => {
      // The very file that was checked, now reached through a symlinked folder outside the project.
      fs.renameSync(inner, moved);
      fs.symlinkSync(moved, inner);
    });
    expect(swapped).toBe(true);
    expect(result).toMatchObject({ path: file, outsideProject: false, error: FILE_CHANGED });
    expect(result).not.toHaveProperty("content");
  });
});
