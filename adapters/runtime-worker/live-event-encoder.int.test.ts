/**
 * Streamed output as deltas, through a real worker (the in-process client: the same worker host and the same
 * validated, JSON round-tripped protocol as a forked worker) with the real pi SDK, the scripted faux model and
 * real bash processes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyLiveEvent, EMPTY_LIVE_STREAM, type LiveStreamState, streamedText } from "../../domain/live/live-stream.ts";
import { agentDirEnv } from "../runtime-host/runtime-host-test-support.ts";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../runtime-client/in-process-worker-client.ts";
import { createRuntimeTestDirs, isEvent, record, type Recorder } from "../runtime-client/runtime-test-support.ts";

/** 20 KB of text (no markup): the faux model streams it in 12-character chunks. */
const REPLY = Array.from({ length: 4000 }, (_, i) => `w${i}`)
  .join(" ")
  .slice(0, 20_000);
const CHUNK_CHARS = 12;
/** 3 tokens (one chunk) per ms: a fast real provider's pace, slow enough that the 30 ms coalescing matters. */
const TOKENS_PER_SECOND = 3000;
const TOOL_COMMAND = "for i in 1 2 3 4; do echo line$i; sleep 0.3; done";
const USER_COMMAND = "for i in 1 2 3; do echo shell$i; sleep 0.3; done";

const env = agentDirEnv(() => createRuntimeTestDirs("leyline-live-"));
const dirs = env.dirs;
let client: InProcessWorkerClient;
let rec: Recorder;

beforeAll(async () => {
  env.setUp();
  client = InProcessWorkerClient.start({
    fauxScript: new FauxScript([
      { match: "long reply", text: REPLY },
      { match: "run the loop", toolCalls: [{ name: "bash", arguments: { command: TOOL_COMMAND } }] },
      { match: "run the loop", text: "The loop ran." },
    ]),
  });
  rec = record(client);
  await client.request("open", {
    new: { cwd: dirs.cwd },
    options: { agentDir: dirs.agentDir, faux: { tokensPerSecond: TOKENS_PER_SECOND }, heartbeatMs: 0 },
  });
});
afterAll(async () => {
  await client.dispose({ timeoutMs: 5000 });
  env.tearDown();
});

type WireEvent = { type: string } & Record<string, unknown>;

/** Every state the fold passes through, in order. */
function foldAll(events: readonly WireEvent[]): LiveStreamState[] {
  const states: LiveStreamState[] = [];
  let state = EMPTY_LIVE_STREAM;
  for (const event of events) {
    state = applyLiveEvent(state, event);
    states.push(state);
  }
  return states;
}

describe("live event encoding through a real worker", () => {
  it(
    "streams a 20 KB reply as coalesced deltas: ≤ 3× its size over IPC, and the fold rebuilds it exactly",
    { timeout: 60_000 },
    async () => {
      rec.clear();
      await client.request("prompt", { text: "a long reply please", awaitCompletion: true });
      await rec.waitFor(isEvent("agent_end"));
      const events = rec.events();
      const bytes = events.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
      const deltas = events.filter((event) => event.type === "stream_delta");
      const chunks = Math.ceil(REPLY.length / CHUNK_CHARS);
      console.info(
        `20 KB reply: ${bytes} bytes of events (${(bytes / REPLY.length).toFixed(2)}× the reply), ${deltas.length} stream_delta events for ${chunks} chunks`,
      );

      expect(bytes).toBeLessThanOrEqual(3 * REPLY.length);
      for (const event of events) {
        expect(event).not.toHaveProperty("assistantMessageEvent");
        expect(JSON.stringify(event)).not.toContain('"partial"');
      }
      expect(events.map((event) => event.type)).not.toContain("message_update");
      // Coalesced: far fewer events than the model's chunks, yet more than one (it streamed, it did not arrive at the end).
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.length).toBeLessThanOrEqual(chunks / 4);

      // The fold rebuilds the text exactly: just before message_end, the streamed message is the reply.
      const states = foldAll(events);
      const end = events.findIndex((event) => event.type === "message_end" && (event["message"] as { role?: string }).role === "assistant");
      expect(end).toBeGreaterThan(0);
      const beforeEnd = states[end - 1]?.message;
      expect(beforeEnd).not.toBeNull();
      expect(streamedText(beforeEnd ?? { timestamp: 0, blocks: [] })).toBe(REPLY);
      // The reply travels once: message_end and agent_end leave it out.
      expect(events[end]).toMatchObject({ contentOmitted: true, message: { role: "assistant", stopReason: "stop" } });
      expect(events[end]?.["message"]).not.toHaveProperty("content");
      expect(beforeEnd?.timestamp).toBe((events[end]?.["message"] as { timestamp: number }).timestamp);
      expect(events.find((event) => event.type === "agent_end")).toEqual({ type: "agent_end", contentOmitted: true });
      expect(states.at(-1)).toEqual(EMPTY_LIVE_STREAM);
    },
  );

  it("streams a running bash tool's output before the tool ends", { timeout: 60_000 }, async () => {
    rec.clear();
    await client.request("prompt", { text: "run the loop", awaitCompletion: true });
    await rec.waitFor(isEvent("agent_end"));
    const events = rec.events();
    const start = events.findIndex((event) => event.type === "tool_execution_start");
    const end = events.findIndex((event) => event.type === "tool_execution_end");
    expect(start).toBeGreaterThan(-1);
    expect(events[start]).not.toHaveProperty("args");
    expect(events[end]).not.toHaveProperty("result");
    expect(events[end]).toMatchObject({ toolName: "bash", isError: false });
    const toolCallId = events[start]?.["toolCallId"] as string;

    const states = foldAll(events);
    const firstLine = states.findIndex((state) => state.tools[toolCallId]?.text.includes("line1") === true);
    expect(firstLine).toBeGreaterThan(start);
    expect(firstLine).toBeLessThan(end);
    expect(events[firstLine]?.type).toBe("stream_delta");
    // line1 arrived while the loop still ran (before line4), and the output grew in place.
    expect(states[firstLine]?.tools[toolCallId]?.text).not.toContain("line4");
    expect(states[end - 1]?.tools[toolCallId]).toEqual({ toolName: "bash", text: "line1\nline2\nline3\nline4\n" });
    expect(states[end]?.tools).toEqual({});
    // The tool call's arguments were streamed too.
    const call = states.flatMap((state) => state.message?.blocks ?? []).findLast((block) => block.type === "toolCall");
    expect(call).toMatchObject({ type: "toolCall", id: toolCallId, name: "bash", json: JSON.stringify({ command: TOOL_COMMAND }) });
  });

  it("streams a ! command between bash_execution_start and bash_execution_end", { timeout: 30_000 }, async () => {
    rec.clear();
    const result = await client.request("bash", { command: USER_COMMAND });
    await rec.waitFor(isEvent("bash_execution_end"));
    const events = rec.events();
    expect(events[0]).toEqual({ type: "bash_execution_start", command: USER_COMMAND });
    const end = events.findIndex((event) => event.type === "bash_execution_end");
    const states = foldAll(events);
    const firstLine = states.findIndex((state) => state.bash?.text.includes("shell1") === true);
    expect(firstLine).toBeGreaterThan(0);
    expect(firstLine).toBeLessThan(end);
    expect(states[firstLine]?.bash?.text).not.toContain("shell3");
    expect(states[end - 1]?.bash).toEqual({ command: USER_COMMAND, text: result.output });
    expect(result.output).toBe("shell1\nshell2\nshell3\n");
    expect(states[end]?.bash).toBeNull();
  });
});
