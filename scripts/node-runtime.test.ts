import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MINIMUM_NODE, isSupportedNode, serverNode } from "./node-runtime.mjs";

const root = path.resolve(import.meta.dirname, "..");

describe("the Node that runs Leyline", () => {
  it("is at least 22.19", () => {
    expect(MINIMUM_NODE).toBe("22.19.0");
    expect(["v22.19.0", "22.23.3", "24.1.0", "26.0.0"].map(isSupportedNode)).toEqual([true, true, true, true]);
    expect(["v20.20.2", "22.18.9", "21.99.0", "18.0.0"].map(isSupportedNode)).toEqual([false, false, false, false]);
  });

  it("is the Node the tests run on, installed by npm ci", () => {
    expect(isSupportedNode(process.version)).toBe(true);
    expect(serverNode(root)).toBe(process.execPath);
    const installed = fs.realpathSync(path.join(root, "node_modules", ".bin", "node"));
    expect(execFileSync(installed, ["--version"], { encoding: "utf8" }).trim()).toMatch(/^v22\./);
  });

  it("is the installed one when an older Node starts the server", () => {
    const older = ["/usr/bin/node", "/usr/local/bin/node"].find(
      (candidate) => fs.existsSync(candidate) && !isSupportedNode(execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim()),
    );
    if (older === undefined) return; // a machine whose only Node is recent: nothing to fall back from
    const chosen = execFileSync(
      older,
      ["--input-type=module", "-e", `import { serverNode } from "./scripts/node-runtime.mjs"; console.log(serverNode(process.cwd()));`],
      { cwd: root, encoding: "utf8" },
    ).trim();
    expect(chosen).toBe(fs.realpathSync(path.join(root, "node_modules", ".bin", "node")));
  });
});
