/**
 * Keeping the tree panel's copy of a session tree current (GET .../tree?from=&after=): the first read sends every
 * node; later reads send the client's count and last id, and the server answers only the nodes appended since
 * (`from` = that count), or the whole tree again (`from: 0`) when the file no longer starts with what the client
 * holds (a reset rewrote it). Pure.
 *
 * Rules: `labels` in an answer is every current label (a label entry changes an earlier node's label), so the
 * merged nodes carry exactly those labels; the leaf is the answer's; an answer that starts anywhere else than 0 or
 * the held count cannot be merged (read the whole tree again).
 */
import type { SessionTreeNode, SessionTreeView, TreeSince } from "../../../../domain/session-tree-view.ts";

/** What to ask for when holding `held` (undefined: the whole tree). */
export function treeSince(held: SessionTreeView | null): TreeSince | undefined {
  const last = held?.nodes.at(-1);
  return held === null || last === undefined ? undefined : { from: held.nodes.length, after: last.id };
}

function withLabel(node: SessionTreeNode, label: string | undefined): SessionTreeNode {
  if (node.label === label) return node;
  if (label === undefined) {
    const { label: _dropped, ...rest } = node;
    void _dropped;
    return rest;
  }
  return { ...node, label };
}

/** The held tree updated by an answer, or null when the answer does not continue it (ask for the whole tree). */
export function mergeTreeView(held: SessionTreeView | null, answer: SessionTreeView): SessionTreeView | null {
  let nodes: readonly SessionTreeNode[];
  if (answer.from === 0) nodes = answer.nodes;
  else if (held !== null && held.sessionId === answer.sessionId && answer.from === held.nodes.length) {
    nodes = [...held.nodes, ...answer.nodes];
    if (nodes.length !== answer.total) return null;
  } else return null;
  const labels = answer.labels;
  return {
    ...answer,
    from: 0,
    nodes: nodes.map((node) => withLabel(node, Object.hasOwn(labels, node.id) ? labels[node.id] : undefined)),
  };
}
