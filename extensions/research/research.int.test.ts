/**
 * The bundled research extension in real pi sessions (in-process SDK, pi-ai's faux provider, real JSONL files):
 * the tool exists only with the session-ID-bound marker; the lead protocol and the ledger reach the model;
 * research_update writes plan / phase / source events; the final response at the report checkpoint becomes a
 * report or an error event; a fork replays the state bound to its id and a reset-cut report event is restored,
 * both idempotently.
 */
import * as fs from "node:fs";
import type { AssistantMessage, JsonObject, Message } from "@earendil-works/pi-ai";
import type { AgentSession, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResearchEvent, researchEventEntryData } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchEvent, type ResearchState } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { createPiHarness, type PiHarness } from "../../test/support/pi-harness.ts";
import { LEAD_PROTOCOL_START } from "./lead-protocol.ts";

let harness: PiHarness;
let researchExtension: ExtensionFactory;

beforeAll(async () => {
  harness = await createPiHarness({ tempPrefix: "leyline-research-ext-" });
  // Imported after the harness set PI_CODING_AGENT_DIR (pi caches paths at module load).
  researchExtension = (await import("./index.ts")).default;
});
afterAll(async () => {
  await harness.dispose();
});

const TOOLS = ["read", "bash", "ls", "research_update"];

/** What the model was sent, per request. */
interface Seen {
  tools: string[];
  systemPrompt: string;
}

/**
 * The prompt and tools a request carries: pi 1.x sends them as system messages (the first with every section
 * and tool, later ones patching sections and adding or removing tools), folded here in order.
 */
function modelView(messages: readonly Message[]): Seen {
  const sections = new Map<string, string>();
  const heads: string[] = [];
  const tools = new Set<string>();
  for (const message of messages) {
    if (message.role !== "system") continue;
    const text = typeof message.content === "string" ? message.content : message.content.map((block) => block.text).join("\n");
    if (text !== "") heads.push(text);
    for (const [name, value] of Object.entries(message.sections ?? {})) {
      if (value === null) sections.delete(name);
      else sections.set(name, value);
    }
    for (const tool of message.toolsAdded ?? []) tools.add(tool.name);
    for (const tool of message.toolsRemoved ?? []) tools.delete(tool.name);
  }
  return { tools: [...tools], systemPrompt: [...heads, ...sections.values()].join("\n") };
}

function reply(seen: Seen[], message: () => AssistantMessage) {
  return (context: { readonly messages: readonly Message[] }): AssistantMessage => {
    seen.push(modelView(context.messages));
    return message();
  };
}

function toolTurn(seen: Seen[], id: string, args: JsonObject) {
  return reply(seen, () =>
    harness.ai.fauxAssistantMessage([harness.ai.fauxToolCall("research_update", args, { id })], { stopReason: "toolUse" }),
  );
}

function textTurn(seen: Seen[], text: string) {
  return reply(seen, () => harness.ai.fauxAssistantMessage(text));
}

function markerData(sessionId: string) {
  return researchEventEntryData({ kind: "session", sessionId });
}

async function researchSession(): Promise<AgentSession> {
  const session = await harness.createSession({ extensionFactories: [researchExtension], tools: TOOLS, bind: false });
  session.sessionManager.appendCustomEntry(RESEARCH_CUSTOM_TYPE, markerData(session.sessionId));
  await session.bindExtensions({});
  return session;
}

function stateOf(session: AgentSession): ResearchState {
  const state = researchStateFromEntries(session.sessionId, session.sessionManager.getBranch());
  if (state === null) throw new Error("no research state");
  return state;
}

function eventsOf(entries: readonly SessionEntry[]): ResearchEvent[] {
  return entries.flatMap((entry) => {
    const event = parseResearchEvent(entry);
    return event ? [event] : [];
  });
}

function toolResultTexts(session: AgentSession): string[] {
  return session.sessionManager.getBranch().flatMap((entry) => {
    if (entry.type !== "message" || entry.message.role !== "toolResult") return [];
    return [entry.message.content.map((c) => (c.type === "text" ? c.text : "")).join("")];
  });
}

const PLAN: JsonObject = {
  action: "plan",
  strategy: "Two angles",
  threads: [
    { id: "t1", title: "History", task: "history of X" },
    { id: "t2", title: "Today", task: "state of X" },
  ],
};
const SOURCES: JsonObject = {
  action: "sources",
  threadId: "t1",
  sources: [
    { url: "https://example.org/a", title: "A", claim: "a", evidence: "ea" },
    { path: "./notes/b.md", title: "B" },
    { url: "https://example.org/c", title: "C" },
    { title: "no location" },
  ],
};

/** Runs plan → sources → exclude 3 → synthesize → report checkpoint, then `report` as the final answer. */
async function researchRun(session: AgentSession, report: string, seen: Seen[] = []): Promise<void> {
  harness.faux.setResponses([
    toolTurn(seen, "c1", PLAN),
    toolTurn(seen, "c2", SOURCES),
    toolTurn(seen, "c3", { action: "exclude", sourceId: 3, reason: "off topic" }),
    toolTurn(seen, "c4", { action: "phase", phase: "synthesize", note: "merging" }),
    toolTurn(seen, "c5", { action: "phase", phase: "report", title: "X explained", citedSourceIds: [1, 2] }),
    textTurn(seen, report),
  ]);
  await session.prompt("Investigate X");
}

const VALID_REPORT = "# X explained\n\nX began early [1](https://example.org/a) and is documented [2](notes/b.md).";

describe("research extension (in-process pi sessions)", () => {
  it("a normal session never sees research_update nor the protocol, and gets no research entry", async () => {
    const session = await harness.createSession({ extensionFactories: [researchExtension], tools: TOOLS });
    const seen: Seen[] = [];
    harness.faux.setResponses([textTurn(seen, "Hello.")]);
    await session.prompt("Hi");
    expect(session.getAllTools().map((t) => t.name)).not.toContain("research_update");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.tools).toEqual(["read", "bash", "ls"]);
    expect(seen[0]?.systemPrompt).not.toContain(LEAD_PROTOCOL_START);
    expect(session.sessionManager.getEntries().filter((e) => e.type === "custom")).toEqual([]);
  });

  it("an invalid marker (no session id, unknown version) does not make a research session", async () => {
    const session = await harness.createSession({ extensionFactories: [researchExtension], tools: TOOLS, bind: false });
    session.sessionManager.appendCustomEntry(RESEARCH_CUSTOM_TYPE, { version: 1, kind: "session" });
    session.sessionManager.appendCustomEntry(RESEARCH_CUSTOM_TYPE, { ...markerData(session.sessionId), version: 2 });
    await session.bindExtensions({});
    expect(session.getActiveToolNames()).not.toContain("research_update");
    expect(session.sessionManager.getEntries().filter((e) => e.type === "custom")).toHaveLength(2);
  });

  it("with the marker: the tool and the protocol reach the model, the objective is recorded, and the events are written", async () => {
    const session = await researchSession();
    expect(session.getActiveToolNames()).toContain("research_update");
    const seen: Seen[] = [];
    await researchRun(session, VALID_REPORT, seen);

    expect(seen).toHaveLength(6);
    expect(seen[0]?.tools).toContain("research_update");
    expect(seen[0]?.systemPrompt).toContain(LEAD_PROTOCOL_START);
    expect(seen[0]?.systemPrompt).toContain("Objective: Investigate X");
    expect(seen[0]?.systemPrompt).toContain("Source ledger: empty.");

    const kinds = eventsOf(session.sessionManager.getBranch()).map((e) => e.kind);
    expect(kinds).toEqual(["session", "objective", "plan", "source", "source", "source", "thread", "source", "phase", "phase", "report"]);

    const texts = toolResultTexts(session);
    expect(texts[1]).toContain("[1] https://example.org/a | A");
    expect(texts[1]).toContain("[2] ./notes/b.md | B");
    expect(texts[1]).toContain("[3] https://example.org/c | C");
    expect(texts[1]).toContain("source #4: a source needs an http(s) url or a non-empty path");
    expect(texts[2]).toContain("Source 3 excluded (off topic)");
    expect(texts[4]).toContain("Report checkpoint recorded");

    const state = stateOf(session);
    const last = session.sessionManager
      .getBranch()
      .filter((e) => e.type === "message")
      .at(-1);
    expect(state).toMatchObject({
      status: "complete",
      phase: "report",
      objective: "Investigate X",
      strategy: "Two angles",
      reportTitle: "X explained",
      reportEntryId: last?.id,
      citedSourceIds: [1, 2],
      note: "",
    });
    expect(state.threads.map((t) => [t.id, t.sourceIds])).toEqual([
      ["t1", [1, 2, 3]],
      ["t2", []],
    ]);
    expect(state.sources.map((s) => [s.id, s.status])).toEqual([
      [1, "cited"],
      [2, "cited"],
      [3, "excluded"],
    ]);

    // The next turn's protocol carries the ledger.
    const next: Seen[] = [];
    harness.faux.setResponses([textTurn(next, "Anything else?")]);
    await session.prompt("Thanks");
    expect(next[0]?.systemPrompt).toContain("[1] https://example.org/a | A");
    expect(next[0]?.systemPrompt).toContain("[3] https://example.org/c | C [excluded: off topic; do not cite]");
    expect(next[0]?.systemPrompt).toContain("phase report, status complete");
    // a complete state is not checked again (no error for an answer without citations)
    expect(stateOf(session).status).toBe("complete");
  });

  it.each([
    ["an invalid number", "See [7](https://example.org/z).", "Citation [7](https://example.org/z) names no ledger source 7"],
    ["an excluded source", "See [1](https://example.org/a) and [3](https://example.org/c).", "cites excluded source 3"],
    [
      "no citation although usable sources exist",
      "A report without citations.",
      "no valid numeric citation of the 2 usable ledger sources",
    ],
  ])("a report with %s records an error event", async (_label, report, message) => {
    const session = await researchSession();
    await researchRun(session, report);
    const state = stateOf(session);
    expect(state.status).toBe("error");
    expect(state.error).toContain("Invalid research report");
    expect(state.error).toContain(message);
    expect(state.reportEntryId).toBe("");
  });

  it("a tool call that cannot be used is a tool error and writes nothing", async () => {
    const session = await researchSession();
    harness.faux.setResponses([toolTurn([], "e1", { action: "exclude", sourceId: 9, reason: "x" }), textTurn([], "ok")]);
    await session.prompt("Investigate Y");
    const result = session.sessionManager.getBranch().find((e) => e.type === "message" && e.message.role === "toolResult");
    expect(result?.type === "message" && result.message.role === "toolResult" && result.message.isError).toBe(true);
    expect(eventsOf(session.sessionManager.getBranch()).map((e) => e.kind)).toEqual(["session", "objective"]);
  });

  it("a fork replays the research state bound to the fork id (report revalidated), once", async () => {
    const sessionManager = harness.pi.SessionManager.create(harness.cwd, harness.sessionDir);
    sessionManager.appendCustomEntry(RESEARCH_CUSTOM_TYPE, markerData(sessionManager.getSessionId()));
    const runtime = await harness.createRuntime({ extensionFactories: [researchExtension], tools: TOOLS, sessionManager });
    await researchRun(runtime.session, VALID_REPORT);
    const source = stateOf(runtime.session);
    expect(source.status).toBe("complete");

    // Fork at the follow-up prompt: everything up to the report is retained.
    harness.faux.setResponses([textTurn([], "More.")]);
    await runtime.session.prompt("Follow-up");
    const followUp = runtime.session.sessionManager
      .getBranch()
      .filter((e) => e.type === "message" && e.message.role === "user")
      .at(-1);
    if (!followUp) throw new Error("no follow-up entry");
    const result = await runtime.fork(followUp.id, { position: "before" });
    expect(result.cancelled).toBe(false);
    // The host rebinds the replacement session (Leyline's worker does it in setRebindSession): session_start.
    await runtime.session.bindExtensions({});

    const fork = runtime.session;
    expect(fork.sessionId).not.toBe(source.sessionId);
    expect(fork.getActiveToolNames()).toContain("research_update");
    const forked = stateOf(fork);
    const { sessionId: _a, lastEventId: _b, updatedAt: _c, ...rest } = source;
    expect(forked).toMatchObject({ ...rest, sessionId: fork.sessionId });
    const forkFile = fork.sessionFile;
    if (!forkFile) throw new Error("no fork file");
    const lineCount = (): number =>
      fs
        .readFileSync(forkFile, "utf8")
        .split("\n")
        .filter((l) => l !== "").length;
    const count = lineCount();
    expect(
      eventsOf(fork.sessionManager.getBranch())
        .filter((e) => e.sessionId === fork.sessionId)
        .at(-1)?.kind,
    ).toBe("report");

    // Opening the fork again (a fresh session_start on the same file) appends nothing.
    const reopened = await harness.createSession({
      extensionFactories: [researchExtension],
      tools: TOOLS,
      sessionManager: harness.pi.SessionManager.open(forkFile, harness.sessionDir),
    });
    expect(lineCount()).toBe(count);
    expect(stateOf(reopened)).toMatchObject({ sessionId: fork.sessionId, status: "complete" });
  });

  it("a reset that cut the report event restores it from the retained report, once", async () => {
    const session = await researchSession();
    await researchRun(session, VALID_REPORT);
    const file = session.sessionFile;
    if (!file) throw new Error("no session file");
    const reportEntryId = stateOf(session).reportEntryId;

    // Reset to the report message: keep every line up to it (the report event after it is cut).
    const lines = fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    const cut = lines.findIndex((line) => (JSON.parse(line) as { id?: string }).id === reportEntryId);
    expect(cut).toBeGreaterThan(0);
    fs.writeFileSync(file, `${lines.slice(0, cut + 1).join("\n")}\n`);

    const reopen = async (): Promise<AgentSession> =>
      harness.createSession({
        extensionFactories: [researchExtension],
        tools: TOOLS,
        sessionManager: harness.pi.SessionManager.open(file, harness.sessionDir),
      });
    const reopened = await reopen();
    const state = stateOf(reopened);
    expect(state).toMatchObject({ status: "complete", reportEntryId, reportTitle: "X explained", citedSourceIds: [1, 2] });
    const size = fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "").length;
    expect(size).toBe(cut + 2);

    const again = await reopen();
    expect(stateOf(again).status).toBe("complete");
    expect(
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "").length,
    ).toBe(size);
  });
});
