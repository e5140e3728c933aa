import { describe, expect, it } from "vitest";
import { toEntries } from "../../test/arbitraries/research.arbitrary.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchEvent, ResearchState } from "../../domain/research/research-types.ts";
import { researcherTask, threadCompletion, threadQueuedEvents, threadStartEvents } from "./researcher-threads.ts";

const S = "sess-a";
const CHILD = { id: "child-1", path: "/tmp/child-1.jsonl", cwd: "/tmp" };

function stateOf(events: ResearchEvent[]): ResearchState {
  const state = researchStateFromEntries(S, toEntries(events));
  if (state === null) throw new Error("no state");
  return state;
}

const planned: ResearchEvent[] = [
  { kind: "session", sessionId: S },
  {
    kind: "plan",
    sessionId: S,
    strategy: "s",
    threads: [
      { id: "t1", title: "One", task: "first task" },
      { id: "t2", title: "Two", task: "second task" },
    ],
  },
];

function block(value: unknown): string {
  return `Prose.\n<research_result>${JSON.stringify(value)}</research_result>`;
}

describe("researcherTask", () => {
  it("reads the leading thread id, else a planned thread with the same task, else the next free t<n>", () => {
    const state = stateOf(planned);
    expect(researcherTask(state, "t2: dig deeper")).toEqual({ threadId: "t2", task: "t2: dig deeper", body: "dig deeper" });
    expect(researcherTask(state, "first task")).toEqual({ threadId: "t1", task: "t1: first task", body: "first task" });
    expect(researcherTask(state, "first task", ["t1"])).toEqual({ threadId: "t3", task: "t3: first task", body: "first task" });
    expect(researcherTask(state, "something else", ["t3"])).toMatchObject({ threadId: "t4" });
    expect(researcherTask(state, "look here", [], "t9")).toEqual({ threadId: "t9", task: "t9: look here", body: "look here" });
  });
});

describe("thread events", () => {
  it("queues an unknown thread, starts it running and moves the plan phase to gather", () => {
    const state = stateOf(planned);
    const task = researcherTask(state, "new angle", []);
    const queued = threadQueuedEvents(state, task);
    expect(threadQueuedEvents(state, researcherTask(state, "t1: x"))).toEqual([]);
    const afterQueue = stateOf([...planned, ...queued]);
    expect(afterQueue.threads.at(-1)).toMatchObject({ id: "t3", status: "queued", task: "new angle" });
    const started = threadStartEvents(afterQueue, task, 1_000);
    const running = stateOf([...planned, ...queued, ...started]);
    expect(running.phase).toBe("gather");
    expect(running.threads.at(-1)).toMatchObject({ id: "t3", status: "running", startedAt: 1_000, completedAt: 0 });
    expect(threadStartEvents(running, task, 2_000).map((e) => e.kind)).toEqual(["thread"]);
  });

  it("completion: registers the result's sources (merging by key), finishes the thread with its link", () => {
    const base: ResearchEvent[] = [
      ...planned,
      { kind: "source", sessionId: S, source: { url: "https://x.example/a", title: "A", threadId: "t2" } },
    ];
    const state = stateOf(base);
    const task = researcherTask(state, "t1: first task");
    const output = block({
      threadId: "t1",
      title: "Found",
      summary: "Summary one.",
      sources: [
        { url: "https://x.example/a/", title: "A again", publisher: "", publishedAt: "", kind: "web", claim: "c", evidence: "e" },
        { path: "./b.md", title: "B", publisher: "", publishedAt: "", kind: "file", claim: "", evidence: "" },
      ],
    });
    const done = threadCompletion(state, task, { ok: true, output, childSession: CHILD }, 5_000);
    expect(done.status).toBe("done");
    expect(done.sourceIds).toEqual([1, 2]);
    expect(done.text).toContain("t1: done. Summary one.");
    const next = stateOf([...base, ...done.events]);
    expect(next.threads[0]).toMatchObject({
      id: "t1",
      title: "One",
      status: "done",
      summary: "Summary one.",
      sourceIds: [1, 2],
      childSession: CHILD,
      completedAt: 5_000,
    });
    expect(next.sources.map((s) => [s.id, s.threadIds])).toEqual([
      [1, ["t2", "t1"]],
      [2, ["t1"]],
    ]);
  });

  it("completion: rejected sources are named and noted; a failure or a missing block marks the thread error", () => {
    const state = stateOf(planned);
    const task = researcherTask(state, "t2: second task");
    const sources = Array.from({ length: 22 }, (_, i) => ({
      url: `https://s.example/${i}`,
      title: `S${i}`,
      publisher: "",
      publishedAt: "",
      kind: "web",
      claim: "",
      evidence: "",
    }));
    const done = threadCompletion(
      state,
      task,
      { ok: true, output: block({ threadId: "t2", title: "T", summary: "S", sources }), childSession: CHILD },
      9,
    );
    expect(done.sourceIds).toHaveLength(20);
    expect(done.rejected).toEqual([21, 22].map((n) => `source #${n}: only the first 20 sources of one result are registered`));
    expect(done.text).toContain("Rejected 2");
    const next = stateOf([...planned, ...done.events]);
    expect(next.sourceCount).toBe(20);
    expect(next.note).toBe(`Thread t2: 2 sources not registered (${done.rejected.join("; ")})`);

    const failed = threadCompletion(state, task, { ok: false, error: "No scripted reply", childSession: null }, 10);
    expect(stateOf([...planned, ...failed.events]).threads[1]).toMatchObject({
      status: "error",
      error: "No scripted reply",
      completedAt: 10,
      childSession: null,
    });

    const noBlock = threadCompletion(state, task, { ok: true, output: "just prose", childSession: CHILD }, 11);
    const errored = stateOf([...planned, ...noBlock.events]).threads[1];
    expect(errored).toMatchObject({ status: "error", childSession: CHILD });
    expect(errored?.error).toContain("no valid research_result block");
  });
});
