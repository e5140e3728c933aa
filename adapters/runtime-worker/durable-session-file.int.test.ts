/**
 * The durable write rule on real pi SessionManagers and real files: the file appears with the first user
 * message, holds exactly the bytes pi serialises (header and entries, one JSON line each, in order), is never
 * written twice (pi's own rule writes a resumed assistant-less file's header again), and pi resumes it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AssistantMessage, UserMessage } from "@earendil-works/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSessionFileDurable } from "./durable-session-file.ts";
import { TINY_USAGE } from "../../test/support/tiny-usage.ts";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-durable-file-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const user = (text: string): UserMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "faux",
  provider: "faux",
  model: "faux-1",
  usage: TINY_USAGE,
  stopReason: "stop",
  timestamp: 2,
});

/** What pi writes for a manager's whole state: every file entry as one JSON line. */
function serialised(manager: SessionManager): string {
  return [manager.getHeader(), ...manager.getEntries()].map((entry) => `${JSON.stringify(entry)}\n`).join("");
}

describe("makeSessionFileDurable", () => {
  it("creates the file with the first user message, with pi's bytes, and appends each entry after it", async () => {
    const manager = SessionManager.create("/work/project", dir);
    const durable = makeSessionFileDurable(manager);
    const file = manager.getSessionFile() ?? "";
    manager.appendThinkingLevelChange("high");
    manager.appendCustomEntry("leyline-test", { before: true });
    expect(fs.existsSync(file)).toBe(false); // no conversation, no file (as in pi)

    const prompt = user("first words");
    manager.appendMessage(prompt);
    await expect(durable.persisted(prompt, 1000)).resolves.toBe(true);
    expect(fs.readFileSync(file, "utf8")).toBe(serialised(manager));

    manager.appendMessage(assistant("a reply"));
    manager.appendCustomEntry("leyline-test", { after: true });
    manager.appendMessage(user("second"));
    expect(fs.readFileSync(file, "utf8")).toBe(serialised(manager));
    expect(
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.includes('"type":"session"')),
    ).toHaveLength(1);

    // pi resumes it as it is
    const resumed = SessionManager.open(file, dir);
    expect(resumed.getSessionId()).toBe(manager.getSessionId());
    expect(resumed.getEntries()).toEqual(manager.getEntries());
    expect(fs.readFileSync(file, "utf8")).toBe(serialised(manager));
  });

  it("a resumed file without an assistant message gets each new entry once (pi 0.x wrote header and entries again)", () => {
    const first = SessionManager.create("/work/project", dir);
    makeSessionFileDurable(first);
    first.appendMessage(user("held prompt"));
    const file = first.getSessionFile() ?? "";

    const resumed = SessionManager.open(file, dir);
    makeSessionFileDurable(resumed);
    resumed.appendThinkingLevelChange("low");
    resumed.appendMessage(user("again"));
    resumed.appendMessage(assistant("answer"));
    const text = fs.readFileSync(file, "utf8");
    expect(text).toBe(serialised(resumed));
    expect(text.split("\n").filter((line) => line.includes('"type":"session"'))).toHaveLength(1);

    // pi 1.x's own rule on the same situation agrees (pi 0.x wrote the header into the file a second time).
    const plainFile = path.join(dir, "plain.jsonl");
    fs.writeFileSync(plainFile, fs.readFileSync(file, "utf8").split("\n").slice(0, 2).join("\n") + "\n");
    const plain = SessionManager.open(plainFile, dir);
    plain.appendMessage(user("again"));
    plain.appendMessage(assistant("answer"));
    expect(
      fs
        .readFileSync(plainFile, "utf8")
        .split("\n")
        .filter((line) => line.includes('"type":"session"')),
    ).toHaveLength(1);
  });

  it("does not recreate a file removed after it was written (an entry is appended, as pi does)", () => {
    const manager = SessionManager.create("/work/project", dir);
    makeSessionFileDurable(manager);
    manager.appendMessage(user("prompt"));
    const file = manager.getSessionFile() ?? "";
    fs.rmSync(file);
    const id = manager.appendMessage(assistant("late"));
    expect(fs.readFileSync(file, "utf8")).toBe(`${JSON.stringify(manager.getEntry(id))}\n`);
  });

  it("writes nothing for an in-memory session; persisted() resolves at once", async () => {
    const manager = SessionManager.inMemory("/work/project");
    const durable = makeSessionFileDurable(manager);
    const prompt = user("nothing to write");
    manager.appendMessage(prompt);
    await expect(durable.persisted(prompt, 1000)).resolves.toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
