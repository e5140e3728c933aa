/**
 * The one way Leyline runs git, against real repositories: a repository's own configuration cannot make a read run
 * a program of its choosing through the file-system monitor hook.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, tempRepo, writeFiles } from "../git-review/git-repo.fixture.ts";
import { gitText } from "./git-cli.ts";

describe("git runs", () => {
  it("never start the repository's core.fsmonitor program", async () => {
    const repo = tempRepo("fsmonitor");
    writeFiles(repo, { "a.txt": "a\n" });
    const marker = path.join(repo, "..", `fsmonitor-ran-${path.basename(repo)}`);
    const hook = path.join(repo, "..", `fsmonitor-${path.basename(repo)}.sh`);
    fs.writeFileSync(hook, `#!/bin/sh\necho ran >> "${marker}"\n`, { mode: 0o755 });
    git(repo, ["config", "core.fsmonitor", hook]);
    // The hook works as git is configured: a plain `git status` runs it.
    git(repo, ["status", "--porcelain"]);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    await gitText(["status", "--porcelain=v2", "-z"], { cwd: repo });
    await gitText(["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: repo });
    await gitText(["diff-files", "-p"], { cwd: repo });
    expect(fs.existsSync(marker)).toBe(false);
  });
});
