/**
 * Worker snapshots carry the research state of the current branch (in-process worker, real pi SDK, faux
 * provider): null for a normal session, the marker's state for a new research session, and the state after
 * research events that an extension appends while a run progresses.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Type } from "typebox";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchState } from "../../domain/research/research-types.ts";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../runtime-client/in-process-worker-client.ts";
import type { RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";
import { createRuntimeTestDirs, isEvent, record, type RuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import type { WorkerNotification } from "../runtime-client/worker-client.ts";

let dirs: RuntimeTestDirs;
let previousAgentDir: string | undefined;
const clients: InProcessWorkerClient[] = [];

/** A test extension: `research_probe` appends research events of the current session (plan + one source). */
const researchProbe: ExtensionFactory = (pi) => {
  pi.registerTool({
    name: "research_probe",
    label: "research probe",
    description: "appends research events",
    parameters: Type.Object({ threads: Type.Number() }),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const sessionId = ctx.sessionManager.getSessionId();
      const threads = Array.from({ length: params.threads }, (_, i) => ({
        id: `T${i + 1}`,
        title: `Thread ${i + 1}`,
        task: `task ${i + 1}`,
      }));
      pi.appendEntry(RESEARCH_CUSTOM_TYPE, researchEventEntryData({ kind: "plan", sessionId, strategy: "probe", threads }));
      pi.appendEntry(
        RESEARCH_CUSTOM_TYPE,
        researchEventEntryData({ kind: "source", sessionId, source: { url: "https://example.com/a", title: "A", threadId: "T1" } }),
      );
      return { content: [{ type: "text", text: "recorded" }], details: {} };
    },
  });
};

function researchOf(snapshot: RuntimeSnapshot): ResearchState | null | undefined {
  return (snapshot as RuntimeSnapshot & { research?: ResearchState | null }).research;
}

function isSnapshot(message: WorkerNotification): message is Extract<WorkerNotification, { type: "snapshot" }> {
  return message.type === "snapshot";
}

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-branch-research-");
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = dirs.agentDir;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose({ timeoutMs: 3000 })));
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  dirs.cleanup();
});

function start(script: FauxScript): InProcessWorkerClient {
  const client = InProcessWorkerClient.start({ fauxScript: script, extensionFactories: [researchProbe] });
  clients.push(client);
  return client;
}

describe("research state in worker snapshots", () => {
  it("is null for a normal session", async () => {
    const client = start(new FauxScript([{ text: "hello" }]));
    const opened = await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, faux: {} } });
    expect(researchOf(opened)).toBeNull();
    await client.request("prompt", { text: "hi", awaitCompletion: true });
    expect(researchOf(await client.request("snapshot", {}))).toBeNull();
  });

  it("starts from the marker of a new research session and follows events appended during a run", async () => {
    const client = start(
      new FauxScript([
        { match: "probe", toolCalls: [{ name: "research_probe", arguments: { threads: 2 } }] },
        { match: "probe", text: "probed" },
      ]),
    );
    const rec = record(client);
    const opened = await client.request("open", {
      new: { cwd: dirs.cwd, kind: "research" },
      options: { agentDir: dirs.agentDir, faux: {} },
    });
    expect(researchOf(opened)).toMatchObject({ sessionId: opened.sessionId, status: "running", phase: "plan", threadCount: 0 });

    await client.request("prompt", { text: "probe the web" });
    await rec.waitFor(isEvent("tool_execution_end"));
    // The snapshot sent after the tool finished already holds the appended events (before the run ends).
    const during = await rec.waitFor(
      (message): message is Extract<WorkerNotification, { type: "snapshot" }> =>
        isSnapshot(message) && (researchOf(message.snapshot)?.threadCount ?? 0) === 2,
    );
    expect(researchOf(during.snapshot)).toMatchObject({ strategy: "probe", sourceCount: 1, threadCount: 2 });
    await rec.waitFor(isEvent("agent_end"));
  });
});
