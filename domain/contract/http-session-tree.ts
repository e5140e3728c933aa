/**
 * The session tree read routes (Leyline's addition, issue 15; the spec has no tree routes): the whole tree of a
 * session file as pi's `/tree` shows it, and the transcript of any one branch (for comparing branches). Both read
 * the file through the read side (nothing is written, no runtime starts); the active leaf is the runtime's when it
 * moved without writing (POST /api/pi/sessions/:id/navigate), else the file's last entry.
 * The writes that go with them are runtime actions (domain/contract/http-runtime-actions.ts: navigate, label).
 */
import { Type, type Static } from "typebox";
import {
  SESSION_TREE_NODE_KINDS,
  type SessionTreeNode as SessionTreeNodeType,
  type SessionTreeView as SessionTreeViewType,
} from "../session-tree-view.ts";
import type { ResearchState } from "../research/research-types.ts";
import type { TranscriptEntry } from "../transcript/transcript-types.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, SessionIdParams, type SameType } from "./schema-kit.ts";

const tags = ["sessions"];

export const SessionTreeNode = Type.Object(
  {
    id: Type.String(),
    parentId: Type.Union([Type.String(), Type.Null()], { description: "null for a root (or an orphan whose parent is not in the file)." }),
    kind: literals(SESSION_TREE_NODE_KINDS),
    text: Type.String({ description: "A one-line preview (at most 160 characters)." }),
    timestamp: Type.String(),
    label: Type.Optional(Type.String()),
    toolName: Type.Optional(Type.String()),
    error: Type.Optional(Type.Literal(true)),
  },
  { title: "SessionTreeNode", additionalProperties: false },
);

export const SessionTreeView = Type.Object(
  {
    sessionId: Type.String(),
    leafId: Type.Union([Type.String(), Type.Null()]),
    nodes: Type.Array(SessionTreeNode, { description: "Every entry of the file, in file order, from `from` on." }),
    from: Type.Integer({ minimum: 0, description: "The file-order index of the first node sent (0: the whole tree)." }),
    total: Type.Integer({ minimum: 0, description: "Nodes in the whole tree." }),
    labels: Type.Record(Type.String(), Type.String(), { description: "Every current label by entry id." }),
  },
  { title: "SessionTreeView", additionalProperties: false },
);

const _node: SameType<Static<typeof SessionTreeNode>, SessionTreeNodeType> = true;
const _view: SameType<Static<typeof SessionTreeView>, SessionTreeViewType> = true;
void [_node, _view];

export const sessionTree = defineRoute("GET", "/api/pi/sessions/:id/tree", {
  summary: "Every entry of a session's tree (pi's /tree): kinds, previews, labels, the active leaf",
  description:
    "With `from` and `after` (the count of nodes the client holds and the id of the last), only the nodes appended since, while the file still starts with them; else the whole tree (`from: 0`).",
  tags,
  params: SessionIdParams,
  querystring: Type.Object({
    from: Type.Optional(failsWith(Type.String({ pattern: "^[0-9]{1,9}$" }), "from must be a non-negative integer")),
    after: Type.Optional(Type.String()),
  }),
  response: { 200: SessionTreeView },
});

export const SessionBranch = Type.Object(
  {
    sessionId: Type.String(),
    leafId: Type.String(),
    entries: Type.Array(
      Type.Unsafe<TranscriptEntry>(Type.Object({ id: Type.String(), type: Type.String() }, { additionalProperties: true })),
    ),
    research: Type.Union([Type.Unsafe<ResearchState>(Type.Object({}, { additionalProperties: true })), Type.Null()], {
      description: "The branch's own research state (its source ledger and report), null when it holds no research.",
    }),
  },
  { title: "SessionBranch" },
);

export const sessionBranch = defineRoute("GET", "/api/pi/sessions/:id/branch", {
  summary: "The transcript of the branch that ends at an entry (any branch, not only the active one)",
  tags,
  params: SessionIdParams,
  querystring: Type.Object({ leafId: failsWith(Type.String({ minLength: 1 }), "leafId is required") }),
  response: { 200: SessionBranch },
});

export const SESSION_TREE_ROUTES = [sessionTree, sessionBranch];
