/**
 * Research threads left running (Leyline stopped mid-run) are reconciled when the session opens again, in a
 * real pi session with the bundled research and subagent extensions: a thread whose child session already
 * ended with a valid research_result is completed from it (sources registered), one without a finished child
 * becomes an interrupted error when it cannot be re-run (no LEYLINE_API_URL); opening the file again appends
 * nothing.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentSession, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchEvent, type ResearchState } from "../../domain/research/research-types.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../../domain/session-summary.ts";
import { createPiHarness, type PiHarness } from "../../test/support/pi-harness.ts";
import { INTERRUPTED_THREAD_ERROR } from "./thread-recovery.ts";
import { TINY_USAGE } from "../../test/support/tiny-usage.ts";

let harness: PiHarness;
let extensions: ExtensionFactory[];

// Without the execution route (no LEYLINE_API_URL) nothing can be re-run: the fallback is the interrupted error.
// The re-run itself is tested through the API in test/research/research-restart.int.test.ts.
const apiUrl = process.env["LEYLINE_API_URL"];

beforeAll(async () => {
  delete process.env["LEYLINE_API_URL"];
  harness = await createPiHarness({ tempPrefix: "leyline-thread-recovery-" });
  extensions = [(await import("../research/index.ts")).default, (await import("./index.ts")).default];
});
afterAll(async () => {
  await harness.dispose();
  if (apiUrl !== undefined) process.env["LEYLINE_API_URL"] = apiUrl;
});

const T0 = Date.parse("2026-11-30T10:00:00.000Z");

/** A hand-written child session file of a researcher run (header, marker, task, answer). */
function writeChild(name: string, parentFile: string, parentSessionId: string, task: string, answer: string, startedAt: number): string {
  const file = path.join(harness.sessionDir, `${name}.jsonl`);
  const id = `child-${name}`;
  const lines = [
    { type: "session", version: 3, id, timestamp: new Date(startedAt).toISOString(), cwd: harness.cwd, parentSession: parentFile },
    {
      type: "custom",
      id: "m1",
      parentId: null,
      timestamp: new Date(startedAt).toISOString(),
      customType: SUBAGENT_CUSTOM_TYPE,
      data: { version: 1, parentSessionId, parentSessionPath: parentFile, toolCallId: "call_1", agent: "researcher", readOnlyBash: true },
    },
    {
      type: "message",
      id: "u1",
      parentId: "m1",
      timestamp: new Date(startedAt).toISOString(),
      message: { role: "user", content: task, timestamp: startedAt },
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: new Date(startedAt + 10).toISOString(),
      message: {
        role: "assistant",
        content: [{ type: "text", text: answer }],
        api: "x",
        provider: "faux",
        model: "faux-1",
        usage: TINY_USAGE,
        stopReason: "stop",
        timestamp: startedAt + 10,
      },
    },
  ];
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

function stateOf(session: AgentSession): ResearchState {
  const state = researchStateFromEntries(session.sessionId, session.sessionManager.getBranch());
  if (state === null) throw new Error("no research state");
  return state;
}

describe("interrupted research threads", () => {
  it("are completed from a finished child session or marked interrupted, once", async () => {
    // A research session stopped while t1 and t2 ran (t3 never started).
    const sm = harness.pi.SessionManager.create(harness.cwd, harness.sessionDir);
    const sessionId = sm.getSessionId();
    const events: ResearchEvent[] = [
      { kind: "session", sessionId },
      {
        kind: "plan",
        sessionId,
        strategy: "s",
        threads: [
          { id: "t1", title: "One", task: "first" },
          { id: "t2", title: "Two", task: "second" },
          { id: "t3", title: "Three", task: "third" },
        ],
      },
      { kind: "phase", sessionId, phase: "gather" },
      { kind: "thread", sessionId, thread: { id: "t1", status: "running", startedAt: T0 } },
      { kind: "thread", sessionId, thread: { id: "t2", status: "running", startedAt: T0 } },
    ];
    for (const event of events) sm.appendCustomEntry(RESEARCH_CUSTOM_TYPE, researchEventEntryData(event));
    sm.appendMessage(harness.ai.fauxAssistantMessage("lead was here"));
    const parentFile = sm.getSessionFile();
    if (!parentFile) throw new Error("no parent file");

    const result = {
      threadId: "t1",
      title: "One found",
      summary: "Done before the stop.",
      sources: [{ url: "https://r.example/1", title: "R1", publisher: "", publishedAt: "", kind: "web", claim: "c", evidence: "e" }],
    };
    const child = writeChild(
      "t1-run",
      parentFile,
      sessionId,
      "t1: first",
      `Prose.\n<research_result>${JSON.stringify(result)}</research_result>`,
      T0 + 100,
    );
    // Not a match: another thread's task, an older run, another parent.
    writeChild(
      "t2-old",
      parentFile,
      sessionId,
      "t2: second",
      `<research_result>${JSON.stringify({ ...result, threadId: "t2" })}</research_result>`,
      T0 - 60_000,
    );
    writeChild(
      "other-parent",
      path.join(harness.root, "else.jsonl"),
      "else",
      "t2: second",
      `<research_result>${JSON.stringify({ ...result, threadId: "t2" })}</research_result>`,
      T0 + 100,
    );

    const open = (): Promise<AgentSession> =>
      harness.createSession({
        extensionFactories: extensions,
        tools: ["read", "research_update", "subagent"],
        sessionManager: harness.pi.SessionManager.open(parentFile, harness.sessionDir),
      });
    const session = await open();
    const state = stateOf(session);
    expect(state.threads.map((t) => [t.id, t.status])).toEqual([
      ["t1", "done"],
      ["t2", "error"],
      ["t3", "queued"],
    ]);
    expect(state.threads[0]).toMatchObject({
      summary: "Done before the stop.",
      sourceIds: [1],
      childSession: { id: "child-t1-run", path: child, cwd: harness.cwd },
    });
    expect(state.threads[1]).toMatchObject({ error: INTERRUPTED_THREAD_ERROR, childSession: null });
    expect(state.sources.map((s) => [s.id, s.url, s.threadIds])).toEqual([[1, "https://r.example/1", ["t1"]]]);

    const size = fs.readFileSync(parentFile, "utf8").length;
    const again = await open();
    expect(fs.readFileSync(parentFile, "utf8").length).toBe(size);
    expect(stateOf(again).sourceCount).toBe(1);
  });
});
