/**
 * Differential test: pi's SessionManager writes real v3 session files with branches, labels, names,
 * compactions and branch summaries; after re-opening, our decoder + session tree must agree with pi's
 * getTree / getBranch / getLabel / getLeafId / getEntries.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import fc from "fast-check";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AssistantMessage, UserMessage } from "@earendil-works/pi-ai";
import { decodeSessionText } from "../domain/session-decoder.ts";
import { activeBranch, childrenOf, entryCount, entryIds, entryOf, labelOf, pathTo, type SessionTreeState } from "../domain/session-tree.ts";
import { rebuild } from "../projections/projection.ts";
import { sessionTreeProjection } from "../projections/session-tree.projection.ts";
import { TINY_USAGE } from "./support/tiny-usage.ts";

/** pi's tree node (not exported from the package root). */
type SessionTreeNode = ReturnType<SessionManager["getTree"]>[number];

let tmp = "";
let previousAgentDir: string | undefined;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-tree-"));
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = path.join(tmp, "agent");
});

afterAll(() => {
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  fs.rmSync(tmp, { recursive: true, force: true });
});

function user(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 1 };
}

function assistant(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    usage: TINY_USAGE,
    stopReason: "stop",
    timestamp: 2,
  };
}

type Op =
  | { op: "user" | "assistant" | "info" | "custom"; text: string }
  | { op: "label"; pick: number; text: string | undefined }
  | { op: "branch" | "compaction" | "branchSummary"; pick: number }
  | { op: "reset" | "model" | "thinking" };

const textArb = fc.constantFrom("hello", "héllo 日本 🎉", "", "second thought", "名前");
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constantFrom("user" as const, "assistant" as const, "info" as const, "custom" as const), text: textArb }),
  fc.record({ op: fc.constant("label" as const), pick: fc.nat(), text: fc.constantFrom("mark", "✓ done", "", undefined) }),
  fc.record({ op: fc.constantFrom("branch" as const, "compaction" as const, "branchSummary" as const), pick: fc.nat() }),
  fc.record({ op: fc.constantFrom("reset" as const, "model" as const, "thinking" as const) }),
);

/** Runs the operations against a persisting SessionManager and returns the file it wrote. */
function writeSession(ops: readonly Op[], dir: string): string {
  const sm = SessionManager.create("/work/project", dir);
  // pi writes nothing before the first assistant message
  sm.appendMessage(user("start"));
  sm.appendMessage(assistant("ready"));
  for (const op of ops) {
    const ids = sm.getEntries().map((e) => e.id);
    const pick = (n: number): string => ids[n % ids.length] as string;
    switch (op.op) {
      case "user":
        sm.appendMessage(user(op.text));
        break;
      case "assistant":
        sm.appendMessage(assistant(op.text));
        break;
      case "info":
        sm.appendSessionInfo(op.text);
        break;
      case "custom":
        sm.appendCustomEntry("leyline.test", { text: op.text });
        break;
      case "label":
        sm.appendLabelChange(pick(op.pick), op.text);
        break;
      case "branch":
        sm.branch(pick(op.pick));
        break;
      case "compaction":
        sm.appendCompaction("summary", pick(op.pick), 1000);
        break;
      case "branchSummary":
        sm.branchWithSummary(pick(op.pick), "left that branch");
        break;
      case "reset":
        sm.resetLeaf();
        break;
      case "model":
        sm.appendModelChange("faux", "faux-2");
        break;
      case "thinking":
        sm.appendThinkingLevelChange("high");
        break;
    }
  }
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("pi did not persist the session");
  return file;
}

function flatten(nodes: readonly SessionTreeNode[], out: Map<string, { children: string[]; label: string | undefined }>): void {
  for (const node of nodes) {
    out.set(node.entry.id, { children: node.children.map((c) => c.entry.id), label: node.label });
    flatten(node.children, out);
  }
}

function compareTree(tree: SessionTreeState, sm: SessionManager): void {
  const piEntries = sm.getEntries();
  expect(entryIds(tree).map((id) => entryOf(tree, id))).toEqual(piEntries);
  const roots = sm.getTree();
  expect(tree.roots).toEqual(roots.map((n) => n.entry.id));
  const nodes = new Map<string, { children: string[]; label: string | undefined }>();
  flatten(roots, nodes);
  expect(nodes.size).toBe(entryCount(tree));
  for (const id of entryIds(tree)) {
    expect(childrenOf(tree, id)).toEqual(nodes.get(id)?.children);
    expect(labelOf(tree, id)).toBe(sm.getLabel(id));
    expect(labelOf(tree, id)).toBe(nodes.get(id)?.label);
    expect(pathTo(tree, id)).toEqual(sm.getBranch(id));
  }
  expect(tree.leafId).toBe(sm.getLeafId());
  expect(activeBranch(tree)).toEqual(sm.getBranch());
}

describe("session tree vs pi's SessionManager", () => {
  it("matches a hand-written branching session", () => {
    const dir = fs.mkdtempSync(path.join(tmp, "hand-"));
    const file = writeSession(
      [
        { op: "user", text: "q1" },
        { op: "assistant", text: "a1" },
        { op: "branch", pick: 1 },
        { op: "user", text: "q1 again" },
        { op: "label", pick: 0, text: "start" },
        { op: "info", text: "my session" },
        { op: "label", pick: 0, text: "" },
        { op: "label", pick: 2, text: "kept" },
      ],
      dir,
    );
    const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
    const tree = rebuild(sessionTreeProjection, records);
    const sm = SessionManager.open(file, dir);
    compareTree(tree, sm);
    expect(childrenOf(tree, entryIds(tree)[1] as string)).toHaveLength(2); // the branch point
    expect(Object.keys(tree.labels)).toHaveLength(1);
  });

  it("matches pi on random operation sequences (after re-opening the written file)", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), (ops) => {
        const dir = fs.mkdtempSync(path.join(tmp, "run-"));
        const file = writeSession(ops, dir);
        const text = fs.readFileSync(file, "utf8");
        const tree = rebuild(sessionTreeProjection, decodeSessionText(text).records);
        compareTree(tree, SessionManager.open(file, dir));
      }),
      { numRuns: 40 },
    );
  });
});
