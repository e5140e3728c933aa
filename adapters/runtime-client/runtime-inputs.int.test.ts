/**
 * The fingerprint of what a new runtime reads (runtime-inputs.ts) on real temp folders: each covered input
 * changes it (a write, a new file, a removal), files pi does not read and pi's own lock files do not.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeInputsFingerprint } from "./runtime-inputs.ts";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "leyline-inputs-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const home = path.join(root, "home");
const agentDir = path.join(home, ".pi", "agent");
const workspace = path.join(home, "work");
const cwd = path.join(workspace, "project");
const bundled = path.join(root, "leyline-extensions");
const elsewhere = path.join(root, "elsewhere-extension");
for (const dir of [agentDir, cwd, bundled, elsewhere]) fs.mkdirSync(dir, { recursive: true });

const fingerprint = (): string => runtimeInputsFingerprint({ agentDir, cwd, home, extensionPaths: [bundled] });

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe("runtimeInputsFingerprint", () => {
  it("changes with every input a runtime reads, and only with those", () => {
    let last = fingerprint();
    expect(fingerprint()).toBe(last);
    const changes = (what: string, change: () => void): void => {
      change();
      const now = fingerprint();
      expect(now, what).not.toBe(last);
      last = now;
    };
    const same = (what: string, change: () => void): void => {
      change();
      expect(fingerprint(), what).toBe(last);
    };

    changes("agent settings.json", () => write(path.join(agentDir, "settings.json"), '{"defaultThinkingLevel":"low"}'));
    changes("models.json", () => write(path.join(agentDir, "models.json"), "{}"));
    changes("auth.json", () => write(path.join(agentDir, "auth.json"), "{}"));
    changes("auth.json rewritten", () => write(path.join(agentDir, "auth.json"), '{"x":{"type":"api_key","key":"k"}}'));
    changes("a global extension", () => write(path.join(agentDir, "extensions", "mine", "index.ts"), "export default () => {};"));
    changes("a global skill", () => write(path.join(agentDir, "skills", "s", "SKILL.md"), "# s"));
    changes("the project's .pi settings", () => write(path.join(cwd, ".pi", "settings.json"), "{}"));
    changes("a project prompt", () => write(path.join(cwd, ".pi", "prompts", "p.md"), "hi"));
    changes("a context file in an ancestor", () => write(path.join(workspace, "AGENTS.md"), "rules"));
    changes("an ancestor's .agents/skills", () => write(path.join(workspace, ".agents", "skills", "k", "SKILL.md"), "# k"));
    changes("~/.agents/skills", () => write(path.join(home, ".agents", "skills", "h", "SKILL.md"), "# h"));
    changes("Leyline's extensions", () => write(path.join(bundled, "research", "index.ts"), "export default () => {};"));
    changes("an extension path listed in settings", () =>
      write(path.join(cwd, ".pi", "settings.json"), JSON.stringify({ extensions: [elsewhere, "npm:some-package"] })),
    );
    changes("a file of that extension", () => write(path.join(elsewhere, "index.ts"), "export default () => {};"));
    changes("a removed prompt", () => fs.rmSync(path.join(cwd, ".pi", "prompts", "p.md")));

    same("a project file pi does not read", () => write(path.join(cwd, "src", "main.ts"), "x"));
    same("the agent dir's sessions", () => write(path.join(agentDir, "sessions", "--p--", "s.jsonl"), "{}"));
    same("a lock folder (proper-lockfile)", () => fs.mkdirSync(path.join(cwd, ".pi", "settings.json.lock")));
    changes("a new folder in .pi", () => fs.mkdirSync(path.join(cwd, ".pi", "npm", "node_modules"), { recursive: true }));
    same("the files of installed packages", () => write(path.join(cwd, ".pi", "npm", "node_modules", "p", "index.js"), "x"));
    // a lock that came and went changed the folder's mtime only
    fs.rmSync(path.join(cwd, ".pi", "settings.json.lock"), { recursive: true });
    expect(fingerprint()).toBe(last);
  });
});
