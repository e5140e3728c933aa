import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { nextTick } from "vue";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import type { ResearchState } from "../../../../domain/research/research-types.ts";
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { useRuntimesStore } from "../../stores/runtimes.store.ts";
import { activeOf, cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import LiveOutput from "./LiveOutput.vue";
import { assistantEntry, bashEntry, everyEntryType, syntheticTranscript, toolEntry, userEntry } from "./transcript.fixture.ts";
import type { StreamingMessage } from "./transcript-rows.ts";
import TranscriptView from "./TranscriptView.vue";

const mounted = cleanedAfterEach();

type Props = {
  entries: TranscriptEntry[];
  streaming?: StreamingMessage | null;
  research?: ResearchState | null;
  thinkingDefault?: "collapsed" | "expanded";
  busy?: boolean;
};

async function mountView(props: Props, handler?: (request: RecordedRequest) => FakeAnswer | undefined) {
  setActivePinia(createPinia());
  mounted.backend = fakeBackend(handler);
  await loadMarkdownRenderer();
  mounted.wrapper = mount(TranscriptView, { props: { sessionId: "s1", ...props }, attachTo: document.body });
  await flushPromises();
  return mounted.wrapper;
}

const renderedIds = (w: VueWrapper) => w.findAll("[data-test=entry]").map((e) => e.attributes("data-entry-id"));
const entry = (w: VueWrapper, id: string) => w.get(`[data-test=entry][data-entry-id="${id}"]`);

describe("TranscriptView virtualization", () => {
  it("keeps only a window of a 10,000-entry transcript in the DOM, opening at the latest entry", async () => {
    const entries = syntheticTranscript(10_000);
    const started = performance.now();
    const w = await mountView({ entries });
    const mountedMs = performance.now() - started;

    const first = renderedIds(w);
    expect(first.length).toBeGreaterThan(3);
    expect(first.length).toBeLessThan(60);
    expect(first).toContain("n9999");
    expect(first).not.toContain("n0");

    // Scroll to the middle: a different window, still small.
    const scroller = w.get("[role=log]").element as HTMLElement;
    const scrolls: number[] = [];
    for (const fraction of [0.5, 0.25, 0]) {
      const t = performance.now();
      scroller.scrollTop = Math.round(Number.parseFloat((w.get(".sizer").element as HTMLElement).style.height) * fraction);
      scroller.dispatchEvent(new Event("scroll"));
      await flushPromises();
      scrolls.push(performance.now() - t);
      const ids = renderedIds(w);
      expect(ids.length).toBeLessThan(60);
      expect(ids).not.toContain("n9999");
    }
    expect(renderedIds(w)).toContain("n0");
    expect(w.findAll(".row").length).toBeLessThan(60);
    console.info(
      `10,000-entry transcript: mounted in ${mountedMs.toFixed(0)} ms with ${first.length} rows in the DOM; ` +
        `scroll re-renders ${scrolls.map((ms) => `${ms.toFixed(0)} ms`).join(", ")} (happy-dom)`,
    );
  }, 30_000);
});

describe("TranscriptView entries", () => {
  it("renders every entry type with its data attributes, and hides undisplayed custom messages", async () => {
    const w = await mountView({ entries: everyEntryType() });
    const types = w
      .findAll("[data-test=entry]")
      .map((e) => [e.attributes("data-entry-id"), e.attributes("data-entry-type"), e.attributes("data-role")]);
    expect(types).toEqual([
      ["e0", "system", ""],
      ["e1", "model_change", ""],
      ["e2", "thinking_level_change", ""],
      ["e3", "message", "user"],
      ["e4", "message", "assistant"],
      ["e4:call-1", "tool", ""],
      ["e5", "bash", ""],
      ["e6", "compaction", ""],
      ["e7", "branch_summary", ""],
      ["e8", "message", "custom"],
    ]);
    expect(entry(w, "e3").find("strong").text()).toBe("bug");
    expect(entry(w, "e4").find("code").text()).toBe("app.ts");
    expect(entry(w, "e1").text()).toContain("faux-1");
    expect(entry(w, "e5").text()).toContain("$ npm test");
    expect(entry(w, "e5").get("[data-test=bash-output]").text()).toBe("1 passed");
    expect(entry(w, "e6").text()).toContain("12,345 tokens before");
    await entry(w, "e6").get("[data-test=summary-toggle]").trigger("click");
    expect(entry(w, "e6").text()).toContain("Earlier: fixed a bug.");
    await entry(w, "e0").get("[data-test=system-toggle]").trigger("click");
    expect(entry(w, "e0").text()).toContain("read");
  });

  it("shows a tool call's name, status, diff colours, arguments, result and images", async () => {
    const pending = toolEntry("a1", "c2", {
      status: "pending",
      resultText: "",
      resultEntryId: null,
      name: "bash",
      arguments: { command: "ls -la" },
      diff: undefined,
      file: undefined,
    });
    const failed = toolEntry("a1", "c3", {
      status: "error",
      isError: true,
      name: "read",
      resultText: "ENOENT: no such file",
      arguments: { path: "missing.txt" },
      diff: undefined,
      file: undefined,
    });
    const pictured = toolEntry("a1", "c4", {
      name: "screenshot",
      arguments: {},
      diff: undefined,
      file: undefined,
      resultImages: [
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        { type: "image", mimeType: "text/html", data: "PHNjcmlwdD4=" },
      ],
    });
    const w = await mountView({ entries: [toolEntry("a1", "c1"), pending, failed, pictured] });

    const edit = entry(w, "a1:c1");
    expect(edit.get("[data-test=tool-name]").text()).toBe("edit");
    expect(edit.get("[data-test=tool-status]").attributes("data-status")).toBe("done");
    expect(edit.findAll("[data-test=diff] [data-kind=del]").map((l) => l.text())).toEqual(["-const a = 1;"]);
    expect(edit.findAll("[data-test=diff] [data-kind=add]").map((l) => l.text())).toEqual(["+const a = 2;"]);
    expect(edit.find("[data-test=tool-arguments]").exists()).toBe(false);
    await edit.get("[data-test=tool-arguments-toggle]").trigger("click");
    expect(JSON.parse(edit.get("[data-test=tool-arguments]").text())).toEqual({ path: "src/app.ts", oldText: "a", newText: "b" });
    expect(edit.get("[data-test=tool-result]").text()).toBe("Edited src/app.ts");

    const running = entry(w, "a1:c2");
    expect(running.get("[data-test=tool-status]").attributes("data-status")).toBe("pending");
    expect(running.get("[data-test=tool-arguments]").text()).toBe('{\n  "command": "ls -la"\n}');
    expect(running.find("[data-test=tool-result]").exists()).toBe(false);

    expect(entry(w, "a1:c3").get("[data-test=tool-status]").attributes("data-status")).toBe("error");
    expect(entry(w, "a1:c3").get("[data-test=tool-result]").classes()).toContain("error");

    const images = entry(w, "a1:c4").findAll("[data-test=tool-image]");
    expect(images.map((i) => i.attributes("src"))).toEqual(["data:image/png;base64,iVBORw0KGgo="]);
  });

  it("clips long tool output until asked for all of it", async () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
    const w = await mountView({ entries: [toolEntry("a1", "c1", { resultText: long, diff: undefined })] });
    expect(w.get("[data-test=tool-result]").text().split("\n")).toHaveLength(14);
    await w.get("[data-test=tool-result-toggle]").trigger("click");
    expect(w.get("[data-test=tool-result]").text().split("\n")).toHaveLength(40);
  });

  it("collapses thinking by default and toggles one block at a time", async () => {
    const entries = [assistantEntry("a1", "first", "thought one", 1), assistantEntry("a2", "second", "thought two", 2)];
    const w = await mountView({ entries, thinkingDefault: "collapsed" });
    expect(w.findAll("[data-test=thinking]").map((t) => t.attributes("data-open"))).toEqual(["false", "false"]);
    expect(w.find("[data-test=thinking-text]").exists()).toBe(false);
    await entry(w, "a2").get("[data-test=thinking-toggle]").trigger("click");
    expect(w.findAll("[data-test=thinking]").map((t) => t.attributes("data-open"))).toEqual(["false", "true"]);
    expect(entry(w, "a2").get("[data-test=thinking-text]").text()).toBe("thought two");
    await entry(w, "a2").get("[data-test=thinking-toggle]").trigger("click");
    expect(entry(w, "a2").find("[data-test=thinking-text]").exists()).toBe(false);

    // A new default opens the untouched block; the one closed by hand stays closed.
    await w.setProps({ thinkingDefault: "expanded" });
    expect(w.findAll("[data-test=thinking]").map((t) => t.attributes("data-open"))).toEqual(["true", "false"]);
  });

  it("shows the streaming message after the entries", async () => {
    const streaming: StreamingMessage = {
      id: "m9",
      role: "assistant",
      text: "Working on **it**",
      thinking: "hmm",
      toolCalls: [{ id: "t1", name: "read", arguments: { path: "a.ts" } }],
    };
    const w = await mountView({ entries: [userEntry("u1", "go")], streaming, thinkingDefault: "expanded" });
    const live = w.get("[data-test=streaming]");
    expect(live.find("strong").text()).toBe("it");
    expect(live.get("[data-test=thinking-text]").text()).toBe("hmm");
    expect(live.get("[data-test=streaming-tool-call]").text()).toContain("read");
    await w.setProps({ streaming: { ...streaming, text: "Working on **it** now" } });
    expect(w.get("[data-test=streaming]").text()).toContain("now");
  });

  it("turns report citations into events", async () => {
    const report = assistantEntry("r1", "Findings [1](https://a.example/x).", null, 1);
    const research = { reportEntryId: "r1", reportTitle: "Survey" } as ResearchState;
    const w = await mountView({ entries: [report], research });
    expect(w.get("[data-test=report-title]").text()).toContain("Survey");
    await w.get("[data-test=citation-link]").trigger("click");
    expect(w.emitted("citation")?.[0]?.[0]).toMatchObject({ number: 1, href: "https://a.example/x" });
  });
});

describe("TranscriptView actions", () => {
  const entries = () => [userEntry("u1", "first prompt", 1), assistantEntry("a1", "answer", null, 2), toolEntry("a1", "c1", {}, 3)];

  it("forks from an entry and emits the new session id", async () => {
    const w = await mountView({ entries: entries() }, () => ({
      body: { ok: true, active: activeOf({}, 1, "forked-1"), detail: { session: {}, entries: [] } },
    }));
    await entry(w, "a1:c1").get("[data-test=entry-fork]").trigger("click");
    await flushPromises();
    expect(mounted.backend?.requests).toEqual([{ method: "POST", path: "/api/pi/sessions/s1/fork", body: { entryId: "a1-result" } }]);
    expect(w.emitted("forked")).toEqual([["forked-1"]]);
  });

  const PREVIEW = { entryId: "a1", removedEntryCount: 12, removedMessageCount: 5, removedOtherBranchEntryCount: 4, keptEntryCount: 3 };
  const TRASH = "/agent/leyline-trash/s1.reset-2026-12-01T21-00-00-000Z.jsonl";
  const resetBackend = (request: RecordedRequest): FakeAnswer => {
    if (request.path.startsWith("/api/pi/sessions/s1/reset-preview")) return { body: PREVIEW };
    if (request.path === "/api/pi/active-session") return { body: { active: activeOf() } };
    if (request.path === "/api/pi/sessions/s1/reset-undo")
      return {
        body: { ok: true, detail: { session: { id: "s1" }, entries: [] }, trashed: { path: "/agent/leyline-trash/s1.undo-x.jsonl" } },
      };
    return { body: { ok: true, active: activeOf({}, 5), detail: { session: {}, entries: [] }, trashed: { path: TRASH } } };
  };

  it("resets to an entry only after a confirmation that says exactly what is removed (from the preview)", async () => {
    const w = await mountView({ entries: entries() }, resetBackend);
    await entry(w, "a1").get("[data-test=entry-reset]").trigger("click");
    // until the preview answers, the dialog says it is counting and Reset is disabled
    expect(w.get("[role=alertdialog] .message").text()).toBe("Counting what the reset removes…");
    expect(w.get("[data-test=confirm-ok]").attributes("disabled")).toBeDefined();
    await flushPromises();
    expect(w.get("[role=alertdialog] .message").text()).toBe(
      "Remove 12 entries after this one (5 messages, including 4 entries on other branches). A copy of the whole file is kept in leyline-trash.",
    );
    await w.get("[data-test=confirm-cancel]").trigger("click");
    expect(w.find("[data-test=confirm-ok]").exists()).toBe(false);
    expect(mounted.backend?.requests.map((r) => [r.method, r.path])).toEqual([["GET", "/api/pi/sessions/s1/reset-preview?entryId=a1"]]);

    await entry(w, "a1").get("[data-test=entry-reset]").trigger("click");
    await flushPromises();
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(mounted.backend?.requests.slice(1).map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/reset-preview?entryId=a1", undefined],
      ["/api/pi/active-session", { id: "s1" }],
      ["/api/pi/reset-to-entry", { entryId: "a1" }],
    ]);
    expect(w.emitted("reset")?.[0]?.[0]).toMatchObject({ entryId: "a1", active: { snapshotRevision: 5 } });
    expect(w.find("[data-test=confirm-ok]").exists()).toBe(false);
  });

  it("after a reset a notice offers Undo, which restores the trash copy and reloads the detail", async () => {
    const w = await mountView({ entries: entries() }, resetBackend);
    await entry(w, "a1").get("[data-test=entry-reset]").trigger("click");
    await flushPromises();
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    const notices = useNoticesStore();
    const offer = notices.notices.find((notice) => notice.action?.label === "Undo");
    expect(offer?.message).toBe("Reset done: 12 entries removed.");
    await notices.runAction(offer?.id ?? -1);
    await flushPromises();
    expect(mounted.backend?.requests.at(-1)).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/reset-undo",
      body: { trashPath: TRASH },
    });
    expect(w.emitted("reset")?.[1]?.[0]).toEqual({ entryId: "a1", detail: { session: { id: "s1" }, entries: [] } });
    expect(notices.notices.some((notice) => notice.action !== undefined)).toBe(false);
    expect(notices.notices.map((notice) => notice.message)).toContain(
      "Reset undone: the session file is back as it was. The reset version is kept in leyline-trash.",
    );
  });

  it("a preview that fails keeps Reset disabled and says why", async () => {
    const w = await mountView({ entries: entries() }, (request) =>
      request.path.includes("reset-preview") ? { status: 400, body: { error: "Entry a1 is not on the active branch" } } : undefined,
    );
    await entry(w, "a1").get("[data-test=entry-reset]").trigger("click");
    await flushPromises();
    expect(w.get("[role=alertdialog] [role=alert]").text()).toBe(
      "Cannot tell what the reset removes: Entry a1 is not on the active branch",
    );
    expect(w.get("[data-test=confirm-ok]").attributes("disabled")).toBeDefined();
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(mounted.backend?.requests.map((r) => r.path)).toEqual(["/api/pi/sessions/s1/reset-preview?entryId=a1"]);
  });

  it("edits and resubmits a prompt inline", async () => {
    const w = await mountView({ entries: entries() }, () => ({ body: { ok: true, active: activeOf({ isStreaming: true }, 3) } }));
    expect(entry(w, "a1").find("[data-test=entry-edit]").exists()).toBe(false);
    await entry(w, "u1").get("[data-test=entry-edit]").trigger("click");
    const input = entry(w, "u1").get("[data-test=prompt-editor-input]");
    expect((input.element as HTMLTextAreaElement).value).toBe("first prompt");
    await input.setValue("a better prompt");
    await input.trigger("keydown", { key: "Enter", shiftKey: true });
    expect(mounted.backend?.requests).toEqual([]);
    await input.trigger("keydown", { key: "Enter" });
    await flushPromises();
    expect(mounted.backend?.requests).toEqual([
      { method: "POST", path: "/api/pi/sessions/s1/edit-prompt", body: { entryId: "u1", text: "a better prompt" } },
    ]);
    expect(w.emitted("edited")).toHaveLength(1);
    expect(entry(w, "u1").find("[data-test=prompt-editor]").exists()).toBe(false);
  });

  it("offers no reset or edit while the runtime is busy", async () => {
    const w = await mountView({ entries: entries(), busy: true });
    expect(w.find("[data-test=entry-reset]").exists()).toBe(false);
    expect(w.find("[data-test=entry-edit]").exists()).toBe(false);
    expect(w.findAll("[data-test=entry-fork]")).toHaveLength(3);
  });

  it("copies an entry's text", async () => {
    const w = await mountView({ entries: entries() });
    await entry(w, "a1").get("[data-test=entry-copy]").trigger("click");
    await flushPromises();
    expect(await navigator.clipboard.readText()).toBe("answer");
    expect(entry(w, "a1").get("[data-test=entry-copy]").attributes("aria-label")).toBe("Copied");
  });

  it("shows a failed action in words", async () => {
    const w = await mountView({ entries: entries() }, () => ({
      status: 500,
      body: { error: "Cannot fork while the session is compacting" },
    }));
    await entry(w, "u1").get("[data-test=entry-fork]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=transcript-error]").text()).toContain("Cannot fork while the session is compacting");
    expect(w.emitted("forked")).toBeUndefined();
  });
});

describe("TranscriptView live output", () => {
  type Event = { type: string } & Record<string, unknown>;
  const apply = async (...events: Event[]): Promise<void> => {
    const runtimes = useRuntimesStore();
    for (const event of events) runtimes.applyRuntimeEvent("s1", event);
    await flushPromises();
  };

  it("shows the reply the store rebuilds from deltas, and keeps it after message_end until the entry is persisted", async () => {
    const w = await mountView({ entries: [userEntry("u1", "go")] });
    const runtimes = useRuntimesStore();
    await apply(
      { type: "message_start", message: { role: "assistant", content: [], timestamp: 4242 } },
      { type: "stream_delta", deltas: [{ kind: "text", index: 0, text: "Working on " }] },
      { type: "stream_delta", deltas: [{ kind: "text", index: 0, text: "**it**" }] },
    );
    await w.setProps({ streaming: runtimes.streamingOf("s1") });
    expect(w.get("[data-test=streaming]").find("strong").text()).toBe("it");
    await apply({ type: "message_end", message: { role: "assistant", stopReason: "stop", timestamp: 4242 }, contentOmitted: true });
    await w.setProps({ streaming: runtimes.streamingOf("s1") });
    expect(w.get("[data-test=streaming]").text()).toContain("Working on it");

    // The persisted transcript takes over: the live row goes at once (never beside its entry), the store then settles.
    const persisted = [userEntry("u1", "go"), { ...assistantEntry("a1", "Working on **it**", null, 1), messageTimestamp: 4242 }];
    await w.setProps({ entries: persisted });
    expect(w.find("[data-test=streaming]").exists()).toBe(false);
    expect(renderedIds(w)).toEqual(["u1", "a1"]);
    runtimes.settleStreams("s1", persisted);
    expect(runtimes.streamingOf("s1")).toBeNull();
  });

  it("prints a running tool's output inside its pending entry as it comes, then its result", async () => {
    const pending = toolEntry("a1", "c1", {
      status: "pending",
      resultText: "",
      resultEntryId: null,
      name: "bash",
      arguments: { command: "loop" },
      diff: undefined,
      file: undefined,
    });
    const w = await mountView({ entries: [pending] });
    expect(entry(w, "a1:c1").find("[data-test=tool-live-output]").exists()).toBe(false);
    await apply(
      { type: "tool_execution_start", toolCallId: "c1", toolName: "bash" },
      { type: "stream_delta", tools: { c1: { append: "line1\n" } } },
    );
    const output = () => entry(w, "a1:c1").get("[data-test=tool-live-output]");
    expect(output().text()).toBe("line1");
    expect(output().element.tagName).toBe("PRE");
    await apply({ type: "stream_delta", tools: { c1: { append: "line2\n" } } });
    expect(output().text()).toBe("line1\nline2");
    // Ended but not persisted yet: the output stays.
    await apply({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", isError: false });
    expect(output().text()).toBe("line1\nline2");
    await w.setProps({ entries: [{ ...pending, status: "done", resultText: "line1\nline2\n", resultEntryId: "r1" }] });
    expect(entry(w, "a1:c1").find("[data-test=tool-live-output]").exists()).toBe(false);
    expect(entry(w, "a1:c1").get("[data-test=tool-result]").text()).toBe("line1\nline2");
  });

  it("shows a tool call's output under the streamed message while its entry is not persisted", async () => {
    const w = await mountView({ entries: [] });
    const runtimes = useRuntimesStore();
    await apply(
      { type: "message_start", message: { role: "assistant", content: [], timestamp: 1 } },
      { type: "stream_delta", deltas: [{ kind: "toolCall", index: 0, id: "c9", name: "bash", json: '{"command":"make"}' }] },
      { type: "message_end", message: { role: "assistant", timestamp: 1 }, contentOmitted: true },
      { type: "tool_execution_start", toolCallId: "c9", toolName: "bash" },
      { type: "stream_delta", tools: { c9: { append: "compiling\n" } } },
    );
    await w.setProps({ streaming: runtimes.streamingOf("s1") });
    expect(w.get("[data-test=streaming-tool-call]").text()).toContain('"command": "make"');
    expect(w.get("[data-test=streaming-tool-output]").text()).toBe("compiling");
  });

  it("shows a running `!` command with its output, kept after it ends until its entry is persisted", async () => {
    const w = await mountView({ entries: [userEntry("u1", "hi")] });
    expect(w.find("[data-test=live-bash]").exists()).toBe(false);
    await apply({ type: "bash_execution_start", command: "make test" });
    const live = () => w.get("[data-test=live-bash]");
    expect(live().get("[data-test=live-bash-command]").text()).toBe("$ make test");
    expect(live().attributes("data-running")).toBe("true");
    expect(live().find("[data-test=live-bash-output]").exists()).toBe(false);
    await apply({ type: "stream_delta", bash: "ok 1\n" }, { type: "stream_delta", bash: "ok 2\n" });
    expect(live().get("[data-test=live-bash-output]").text()).toBe("ok 1\nok 2");
    await apply({ type: "bash_execution_end" });
    expect(live().attributes("data-running")).toBe("false");
    const persisted = [userEntry("u1", "hi"), bashEntry("b1", "make test", "ok 1\nok 2\n", 0, 1)];
    await w.setProps({ entries: persisted });
    expect(w.find("[data-test=live-bash]").exists()).toBe(false);
    expect(renderedIds(w)).toEqual(["u1", "b1"]);
    useRuntimesStore().settleStreams("s1", persisted);
    expect(useRuntimesStore().bashOf("s1")).toBeNull();
  });

  it("keeps live output scrolled to its end as it grows, unless the reader scrolled up in it", async () => {
    const w = mount(LiveOutput, { props: { text: "a\n" }, attachTo: document.body });
    const pre = w.element as HTMLElement;
    let height = 500;
    Object.defineProperty(pre, "scrollHeight", { get: () => height });
    Object.defineProperty(pre, "clientHeight", { get: () => 100 });
    await w.setProps({ text: "a\nb\n" });
    await nextTick();
    expect(pre.scrollTop).toBe(500);
    // The reader scrolls up: new output does not pull the view down.
    pre.scrollTop = 100;
    await w.trigger("scroll");
    height = 800;
    await w.setProps({ text: "a\nb\nc\n" });
    await nextTick();
    expect(pre.scrollTop).toBe(100);
    w.unmount();
  });
});
