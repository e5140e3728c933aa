import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileLinkDirs, recordedArgv, writeArgvRecorder } from "./file-links.fixture.ts";
import { findRevealCommand, launchDetached } from "./launchers.ts";

describe("launchDetached", () => {
  it("starts the program without a shell: ; and $HOME arrive verbatim", async () => {
    const dirs = fileLinkDirs("launchers");
    const out = path.join(dirs.root, "out");
    fs.mkdirSync(out);
    const output = path.join(out, "argv");
    const program = writeArgvRecorder(dirs.bin, "fake editor", output);
    const args = ["--flag=$HOME;id", "a b", "`pwd`", "$(id)", "'quoted'", "*"];
    expect(await launchDetached(program, args, { cwd: dirs.project, env: {} })).toEqual({ ok: true });
    expect(await recordedArgv(output)).toEqual({ cwd: dirs.project, args });
  });

  it("reports a program that cannot start", async () => {
    const dirs = fileLinkDirs("launchers");
    const result = await launchDetached(path.join(dirs.bin, "missing"), [], { cwd: dirs.project, env: {} });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining("ENOENT") });
  });
});

describe("findRevealCommand", () => {
  it("on Linux needs an opener on PATH and a desktop session", async () => {
    const dirs = fileLinkDirs("reveal");
    expect(await findRevealCommand({ PATH: dirs.bin, DISPLAY: ":0" }, "linux")).toBeNull();
    writeArgvRecorder(dirs.bin, "xdg-open", path.join(dirs.root, "unused"));
    expect(await findRevealCommand({ PATH: dirs.bin }, "linux")).toBeNull();
    const reveal = await findRevealCommand({ PATH: dirs.bin, WAYLAND_DISPLAY: "wayland-0" }, "linux");
    expect(reveal).toMatchObject({ label: "Show in folder", program: path.join(dirs.bin, "xdg-open") });
    expect(reveal?.argsFor("/p/src/a.ts")).toEqual(["/p/src"]);
  });

  it("names the macOS and Windows reveal", async () => {
    const mac = await findRevealCommand({ PATH: "" }, "darwin");
    expect(mac?.label).toBe("Reveal in Finder");
    expect(mac?.argsFor("/p/a.ts")).toEqual(["-R", "/p/a.ts"]);
    expect((await findRevealCommand({}, "win32"))?.label).toBe("Show in Explorer");
  });
});
