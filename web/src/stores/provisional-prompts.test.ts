import { flushPromises } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { beforeEach, describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { assistantEntry, userEntry } from "../components/transcript/transcript.fixture.ts";
import { unsavedDetail, useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";

const T = Date.UTC(2026, 10, 30, 15, 29, 0);
const prompt = { role: "user", content: [{ type: "text", text: "Explain streaming, please." }], timestamp: T };

describe("the user's prompt in the open session", () => {
  beforeEach(() => setActivePinia(createPinia()));

  it("shows as soon as pi announces it, before pi wrote the session file, then the persisted entry replaces it", async () => {
    const runtimes = useRuntimesStore();
    const open = useOpenSessionStore();
    // A new session: pi has not written its file, the detail has no entries.
    open.$patch((state) => {
      Object.assign(state, { id: "s1", detail: unsavedDetail("s1", null), status: "ready" });
    });
    runtimes.applyRuntimeEvent("s1", { type: "agent_start" });
    runtimes.applyRuntimeEvent("s1", { type: "message_start", message: prompt });
    runtimes.applyRuntimeEvent("s1", { type: "message_end", message: prompt });
    expect(open.entries.map((e) => [e.type, e.type === "message" ? e.role : "", e.type === "message" ? e.text : ""])).toEqual([
      ["message", "user", "Explain streaming, please."],
    ]);
    // Another session's prompt stays there.
    runtimes.applyRuntimeEvent("s2", { type: "message_start", message: { ...prompt, timestamp: T + 1 } });
    expect(open.entries).toHaveLength(1);

    // The reply finished and pi wrote the file: the refetched detail holds the prompt under its own id.
    const persisted: TranscriptEntry[] = [
      { ...userEntry("e1", "Explain streaming, please."), messageTimestamp: T },
      { ...assistantEntry("e2", "Streaming…", null), messageTimestamp: T + 5 },
    ];
    const detail = open.detail;
    if (detail === null) throw new Error("no detail");
    open.$patch((state) => {
      state.detail = { ...detail, entries: persisted };
    });
    expect(open.entries.map((e) => e.id)).toEqual(["e1", "e2"]);
    await flushPromises();
    expect(runtimes.provisionalOf("s1")).toEqual([]);
    expect(runtimes.provisionalOf("s2")).toHaveLength(1);
  });

  it("forgets the prompts of a runtime that went away", () => {
    const runtimes = useRuntimesStore();
    runtimes.applyRuntimeEvent("s1", { type: "message_start", message: prompt });
    runtimes.applyRuntimeEvent("s2", { type: "message_start", message: prompt });
    runtimes.applyRoster(["s2"]);
    expect(runtimes.provisionalOf("s1")).toEqual([]);
    runtimes.remove("s2");
    expect(runtimes.provisionalOf("s2")).toEqual([]);
  });
});
