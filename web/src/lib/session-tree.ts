/**
 * Subagent sessions nested under their parent: a subagent session (`isSubagentSession`) whose
 * `parentSessionPath` is the `path` of another session in the list becomes that session's child (any depth).
 * Forks also carry a `parentSessionPath` (the session they were forked from) but are sessions of their own:
 * they stay top-level (the row can say where they came from, `forkedFrom`). Order is kept: roots and each
 * parent's children appear in input order (the list is newest first). A child whose parent is not in the list
 * stays a root; a parent chain that loops is cut (the session that would close the loop stays a root).
 */
import type { SessionSummary } from "../../../domain/session-summary.ts";

export interface SessionNode {
  session: SessionSummary;
  children: SessionNode[];
}

export function nestSubagents(sessions: readonly SessionSummary[]): SessionNode[] {
  const byPath: Record<string, SessionNode> = {};
  const nodes = sessions.map((session) => ({ session, children: [] as SessionNode[] }));
  for (const node of nodes) {
    if (node.session.path !== "" && byPath[node.session.path] === undefined) byPath[node.session.path] = node;
  }
  const parentOf = (node: SessionNode): SessionNode | undefined => {
    if (!node.session.isSubagentSession) return undefined;
    const parentPath = node.session.parentSessionPath;
    if (parentPath === undefined || parentPath === "" || parentPath === node.session.path) return undefined;
    return byPath[parentPath];
  };
  /** Whether following parents from `start` reaches `target` (a loop if `target` became start's child). */
  const reaches = (start: SessionNode, target: SessionNode): boolean => {
    let current: SessionNode | undefined = start;
    for (let hops = 0; current !== undefined && hops <= nodes.length; hops++) {
      if (current === target) return true;
      current = attached.get(current);
    }
    return false;
  };
  const attached = new Map<SessionNode, SessionNode>();
  const roots: SessionNode[] = [];
  for (const node of nodes) {
    const parent = parentOf(node);
    if (parent === undefined || reaches(parent, node)) {
      roots.push(node);
      continue;
    }
    attached.set(node, parent);
  }
  // Attach children in input order.
  for (const node of nodes) {
    const parent = attached.get(node);
    if (parent !== undefined) parent.children.push(node);
  }
  return roots;
}

/** The session a fork was made from (a listed session; null for subagents, other sessions or unknown parents). */
export function forkedFrom(session: SessionSummary, sessions: readonly SessionSummary[]): SessionSummary | null {
  const parentPath = session.parentSessionPath;
  if (session.isSubagentSession || parentPath === undefined || parentPath === "" || parentPath === session.path) return null;
  return sessions.find((s) => s.path === parentPath) ?? null;
}

/** The number of sessions in a subtree, the node included. */
export function subtreeSize(node: SessionNode): number {
  return 1 + node.children.reduce((sum, child) => sum + subtreeSize(child), 0);
}

/** Whether a node or one of its descendants has `id`. */
export function subtreeHas(node: SessionNode, id: string): boolean {
  return node.session.id === id || node.children.some((child) => subtreeHas(child, id));
}
