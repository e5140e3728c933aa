/**
 * Test support for the session tree: nodes as the server's SessionTreeView has them, a realistic branched
 * session (tool calls, a label, a branch summary, a compaction, a failed answer, three branches), a large
 * synthetic tree, and branch transcripts for the compare view.
 */
import type { SessionTreeNode, SessionTreeNodeKind, SessionTreeView } from "../../../../domain/session-tree-view.ts";
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { assistantEntry, toolEntry, userEntry } from "../transcript/transcript.fixture.ts";

/** A whole-tree answer (`from: 0`) for nodes: the total and the labels the nodes carry. */
export function treeViewOf(nodes: SessionTreeNode[], leafId: string | null, sessionId = "s1"): SessionTreeView {
  const labels: Record<string, string> = {};
  for (const node of nodes) if (node.label !== undefined) labels[node.id] = node.label;
  return { sessionId, leafId, nodes, from: 0, total: nodes.length, labels };
}

export function treeNode(
  id: string,
  parentId: string | null,
  kind: SessionTreeNodeKind,
  text: string,
  extra: Partial<Pick<SessionTreeNode, "label" | "toolName" | "error" | "timestamp">> = {},
): SessionTreeNode {
  return { id, parentId, kind, text, timestamp: extra.timestamp ?? "2026-05-01T10:00:00.000Z", ...extra };
}

/**
 * A session with three branches after `a2`: the active one (a branch summary, a compaction, a failed answer as
 * the leaf), an OAuth attempt (labeled "oauth", with an edit and a model change), and a short third idea.
 *
 * Shown with the default filter: u1, t1, a2, bs1, u3, a5, c1, u4, a6 | u2, t2, a4 | u5, a7.
 */
export function branchedView(leafId = "a6"): SessionTreeView {
  return treeViewOf(
    [
      treeNode("u1", null, "user", "Add a login page"),
      treeNode("a1", "u1", "assistant", "read(src/app.ts)", { toolName: "read" }),
      treeNode("t1", "a1", "tool", "import { createApp } from 'vue'", { toolName: "read" }),
      treeNode("a2", "t1", "assistant", "I will add the page. Which sign-in method?"),
      treeNode("u2", "a2", "user", "Use OAuth instead", { label: "oauth" }),
      treeNode("a3", "u2", "assistant", "edit(src/login.ts)", { toolName: "edit" }),
      treeNode("t2", "a3", "tool", "Edited src/login.ts", { toolName: "edit" }),
      treeNode("a4", "t2", "assistant", "Done with OAuth."),
      treeNode("m1", "a4", "model_change", "model → faux/faux-2"),
      treeNode("bs1", "a2", "branch_summary", "The OAuth attempt needed a client secret we do not have."),
      treeNode("u3", "bs1", "user", "Use passwords"),
      treeNode("a5", "u3", "assistant", "Passwords are in."),
      treeNode("c1", "a5", "compaction", "Login page with passwords; tests pending."),
      treeNode("u4", "c1", "user", "And the tests"),
      treeNode("a6", "u4", "assistant", "429 rate limited", { error: true, timestamp: "2026-05-01T11:30:00.000Z" }),
      treeNode("u5", "a2", "user", "A third idea: magic links"),
      treeNode("a7", "u5", "assistant", "Magic links need mail."),
    ],
    leafId,
  );
}

/**
 * A big session: a main line of `size` nodes (user, assistant with a call, tool result, assistant text), with
 * a short side branch every `branchEvery` nodes. Deterministic.
 */
export function largeView(size: number, branchEvery = 50): SessionTreeView {
  const nodes: SessionTreeNode[] = [];
  let parent: string | null = null;
  const kinds: Array<[SessionTreeNodeKind, string, string | undefined]> = [
    ["user", "Question", undefined],
    ["assistant", "bash(npm test)", "bash"],
    ["tool", "ok", "bash"],
    ["assistant", "Answer", undefined],
  ];
  for (let i = 0; nodes.length < size; i += 1) {
    const [kind, text, toolName] = kinds[i % kinds.length] as [SessionTreeNodeKind, string, string | undefined];
    const id = `n${i}`;
    nodes.push(
      treeNode(id, parent, kind, `${text} ${i}`.replace(/^bash\(npm test\) \d+$/, "bash(npm test)"), toolName ? { toolName } : {}),
    );
    if (i > 0 && i % branchEvery === 0 && nodes.length < size) {
      nodes.push(treeNode(`b${i}`, parent, "user", `Side question ${i}`));
    }
    parent = id;
  }
  return treeViewOf(nodes.slice(0, size), parent, "big");
}

/**
 * The transcripts of two branches that share `u1` and `a2` and differ after: A edits src/login.ts (and reads
 * src/app.ts), B writes src/password.ts and edits src/login.ts.
 */
export function twoBranches(): { a: TranscriptEntry[]; b: TranscriptEntry[] } {
  const shared = [userEntry("u1", "Add a login page", 0), assistantEntry("a2", "Which sign-in method?", null, 1)];
  const a = [
    ...shared,
    userEntry("u2", "Use OAuth instead", 2),
    toolEntry("a3", "call-1", { name: "edit", arguments: { path: "src/login.ts" }, file: "src/login.ts" }, 3),
    toolEntry("a3", "call-2", { name: "read", arguments: { path: "src/app.ts" }, file: "src/app.ts", diff: undefined }, 4),
    assistantEntry("a4", "Done with OAuth.", null, 5),
  ];
  const b = [
    ...shared,
    userEntry("u3", "Use passwords", 2),
    toolEntry("a5", "call-1", { name: "write", arguments: { path: "src/password.ts", content: "x" }, file: "src/password.ts" }, 3),
    toolEntry("a5", "call-2", { name: "edit", arguments: { path: "src/login.ts" }, file: "src/login.ts" }, 4),
    assistantEntry("a6", "Passwords are in.", null, 5),
  ];
  return { a, b };
}
