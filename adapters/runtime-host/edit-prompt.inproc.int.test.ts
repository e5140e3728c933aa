/**
 * RuntimeHandle.editPrompt with in-process workers (real pi SDK, faux provider, temp dirs): the replacement
 * prompt becomes a sibling of the edited user message (a new branch; the old branch stays in the file), the
 * conversation continues on the new branch, and bad requests answer 400/404/500 without moving anything.
 */
import * as fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FauxScript, type FauxTurn } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../runtime-client/in-process-worker-client.ts";
import { createRuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import { RuntimeHost, type RuntimeHostOptions } from "./runtime-host.ts";
import { RuntimeHostError } from "./runtime-host-error.ts";
import { agentDirEnv, jsonlLines, messageTexts, recordHost } from "./runtime-host-test-support.ts";
import { activeBranchIds } from "./session-reset.ts";

const env = agentDirEnv(() => createRuntimeTestDirs("leyline-edit-prompt-"));
const dirs = env.dirs;
let host: RuntimeHost | null = null;

beforeAll(env.setUp);
afterEach(async () => {
  await host?.shutdown();
  host = null;
});
afterAll(env.tearDown);

function makeHost(turns: FauxTurn[], options: Partial<RuntimeHostOptions> = {}): RuntimeHost {
  host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript(turns),
    createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript }),
    idleMs: 0,
    watchdogMs: 0,
    ...options,
  });
  return host;
}

async function expectStatus(promise: Promise<unknown>, status: number, message?: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RuntimeHostError);
  expect((error as RuntimeHostError).status).toBe(status);
  if (message) expect((error as RuntimeHostError).message).toMatch(message);
}

type Line = Record<string, unknown>;

function messageLine(file: string, role: string, text: string): Line {
  const line = jsonlLines(file).find((candidate) => {
    if (candidate["type"] !== "message") return false;
    const message = candidate["message"] as { role: string; content: unknown };
    return message.role === role && JSON.stringify(message.content).includes(text);
  });
  if (!line) throw new Error(`no ${role} message with ${text}`);
  return line;
}

/** "role:text" of the messages on the file's active branch (the last entry's parent chain). */
function branchTexts(file: string): string[] {
  const branch = new Set(activeBranchIds(fs.readFileSync(file)));
  const ids = jsonlLines(file)
    .filter((line) => line["type"] === "message" && (line["message"] as { role: string }).role !== "system")
    .map((line) => String(line["id"]));
  const texts = messageTexts(file);
  return texts.filter((_text, index) => branch.has(ids[index] ?? ""));
}

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

describe("RuntimeHandle.editPrompt (in-process workers)", () => {
  it("appends the replacement as a sibling of the edited prompt; the old branch stays; the session continues there", async () => {
    const h = makeHost([
      { match: "first question", text: "first answer" },
      { match: "second question", text: "second answer" },
      { match: "edited question", text: "edited answer" },
      { match: "follow-up", text: "follow-up answer" },
    ]);
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    const idleWith = (count: number) => () =>
      !handle.busy() &&
      handle.sessionFile !== null &&
      fs.existsSync(handle.sessionFile) &&
      messageTexts(handle.sessionFile).length === count;
    await handle.prompt({ text: "first question" });
    await rec.until(idleWith(2), "first turn");
    await handle.prompt({ text: "second question" });
    await rec.until(idleWith(4), "second turn");
    const file = handle.sessionFile ?? "";
    const originalBytes = fs.readFileSync(file);
    const original = messageLine(file, "user", "first question");

    const active = await handle.editPrompt(String(original["id"]), "edited question", [
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
    ]);
    expect(active.id).toBe(handle.sessionId);
    await rec.until(idleWith(6), "edited turn");

    // the file only grew: the old branch is still there byte for byte
    expect(fs.readFileSync(file).subarray(0, originalBytes.length).equals(originalBytes)).toBe(true);
    const edited = messageLine(file, "user", "edited question");
    expect(edited["parentId"]).toBe(original["parentId"]);
    expect(edited["id"]).not.toBe(original["id"]);
    const editedContent = (edited["message"] as { content: Array<{ type: string }> }).content;
    expect(editedContent.map((block) => block.type)).toContain("image");
    const reply = messageLine(file, "assistant", "edited answer");
    expect(reply["parentId"]).toBe(edited["id"]);
    expect(activeBranchIds(fs.readFileSync(file)).at(-1)).toBe(reply["id"]);
    expect(branchTexts(file)).toEqual(["user:edited question", "assistant:edited answer"]);
    expect(messageTexts(file).slice(0, 4)).toEqual([
      "user:first question",
      "assistant:first answer",
      "user:second question",
      "assistant:second answer",
    ]);

    // pi's leaf stays on the new branch
    await handle.prompt({ text: "follow-up" });
    await rec.until(idleWith(8), "follow-up turn");
    expect(messageLine(file, "user", "follow-up")["parentId"]).toBe(reply["id"]);
    expect(branchTexts(file)).toEqual(["user:edited question", "assistant:edited answer", "user:follow-up", "assistant:follow-up answer"]);
  });

  it("rejects unknown entries (404), non-user entries and bad bodies (400), and edits while busy (500), changing nothing", async () => {
    const h = makeHost(
      [
        { match: "question", text: "answer" },
        { match: "long run", text: "word ".repeat(200) }, // interrupted: long enough to still stream under load
      ],
      { faux: { tokensPerSecond: 40 } },
    );
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    // before anything is saved, no entry exists
    await expectStatus(handle.editPrompt("no-such-entry", "x"), 404);
    await handle.prompt({ text: "question" });
    await rec.until(
      () =>
        !handle.busy() && handle.sessionFile !== null && fs.existsSync(handle.sessionFile) && messageTexts(handle.sessionFile).length === 2,
    );
    const file = handle.sessionFile ?? "";
    const before = fs.readFileSync(file);
    const user = String(messageLine(file, "user", "question")["id"]);
    const assistant = String(messageLine(file, "assistant", "answer")["id"]);

    await expectStatus(handle.editPrompt("no-such-entry", "x"), 404, /not found/);
    await expectStatus(handle.editPrompt(assistant, "x"), 400, /not a user message/);
    await expectStatus(handle.editPrompt(user, "   "), 400, /empty/);
    // Wrong types (a number text, an empty id, images not an array) are the route schema's: api/runtime-actions.int.test.ts.
    await expectStatus(
      handle.editPrompt(user, "x", [{ type: "image", data: PNG_1X1, mimeType: "image/tiff" }]),
      400,
      /Unsupported image type/,
    );
    expect(fs.readFileSync(file).equals(before)).toBe(true);

    await handle.prompt({ text: "long run please" });
    expect(handle.active().state.isStreaming).toBe(true);
    await expectStatus(handle.editPrompt(user, "edited"), 500, /streaming/);
    await handle.interrupt();
    expect(messageTexts(file).filter((text) => text.startsWith("user:"))).toEqual(["user:question", "user:long run please"]);
  });
});
