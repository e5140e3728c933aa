/**
 * Differential tests: Leyline's pure read side (decoder, session tree, summary projection) against pi's own
 * SessionManager and `buildSessionContext`, on session files written by the real pi SDK (see
 * session-corpus.ts) plus the version-1 fixtures.
 *
 * For every file of the harness sessions folder:
 * - entries: our decoded entries equal the entries pi loads (`SessionManager.open(copy).getEntries()`);
 *   for v1 files pi's ids are random, so they are mapped to ours by position first;
 * - summaries: ours (decode + summary projection + select) equal `SessionManager.listAll()`;
 * - active branch and every path: `activeBranch` / `pathTo` equal `getBranch()` / `getBranch(id)`;
 * - tree: roots, children and labels equal `getTree()` / `getLabel()`;
 * - context: pi's `buildSessionContext` over our entries equals pi's over its own (final leaf, and every leaf
 *   for the small files);
 * - transcript: the skeleton of our active-branch transcript (entry kinds, ids, roles, texts, tool call/result
 *   pairing) equals the one derived from pi's `getBranch()` by the spec's layout rules.
 * A mismatch fails with one line per difference: file, check and field path.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionContext, SessionEntry, SessionHeader, SessionInfo, SessionManager } from "@earendil-works/pi-coding-agent";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { LogRecord } from "../../domain/session-log.ts";
import { activeBranch, childrenOf, labelOf, pathTo, type SessionTreeState } from "../../domain/session-tree.ts";
import type { SessionSummary } from "../../domain/session-summary.ts";
import { rebuild } from "../../projections/projection.ts";
import { sessionSummaryProjection, selectSessionSummary } from "../../projections/session-summary.projection.ts";
import { sessionTreeProjection } from "../../projections/session-tree.projection.ts";
import { buildSessionCorpus, type SessionCorpus } from "./session-corpus.ts";

type SessionTreeNode = ReturnType<SessionManager["getTree"]>[number];

/** What Leyline derives from one file. */
interface OurView {
  records: LogRecord[];
  header: SessionHeader | null;
  entries: SessionEntry[];
  tree: SessionTreeState;
  summary: SessionSummary | null;
}

/** What pi derives from (a copy of) the same file; `toOurs` maps pi's entry ids to ours (identity for v3). */
interface PiView {
  manager: SessionManager;
  entries: SessionEntry[];
  toOurs: Map<string, string>;
  /** Set when the entries could not be aligned by position (v1 id mapping impossible). */
  alignmentError: string | null;
}

const EVERY_LEAF_LIMIT = 200;
const MAX_LINES_PER_CHECK = 25;
const ID_FIELDS = new Set(["id", "parentId", "firstKeptEntryId", "targetId", "fromId", "callEntryId", "resultEntryId"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Structural differences between `ours` and `theirs` (keys holding undefined count as absent). */
function diffValues(ours: unknown, theirs: unknown, at: string, out: string[]): void {
  if (out.length >= MAX_LINES_PER_CHECK) return;
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    if (ours.length !== theirs.length) out.push(`${at}.length: leyline=${ours.length} pi=${theirs.length}`);
    const n = Math.min(ours.length, theirs.length);
    for (let i = 0; i < n; i++) diffValues(ours[i], theirs[i], `${at}[${i}]`, out);
    return;
  }
  if (isPlainObject(ours) && isPlainObject(theirs)) {
    const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
    for (const key of [...keys].sort()) {
      if (ours[key] === undefined && theirs[key] === undefined) continue;
      diffValues(ours[key], theirs[key], `${at}.${key}`, out);
    }
    return;
  }
  if (Object.is(ours, theirs)) return;
  if (typeof ours === "string" && typeof theirs === "string") {
    let i = 0;
    while (i < ours.length && i < theirs.length && ours[i] === theirs[i]) i++;
    const from = Math.max(0, i - 20);
    out.push(
      `${at}: strings differ at char ${i} (lengths leyline=${ours.length} pi=${theirs.length}): ` +
        `leyline=${show(ours.slice(from, i + 40))} pi=${show(theirs.slice(from, i + 40))}`,
    );
    return;
  }
  out.push(`${at}: leyline=${show(ours)} pi=${show(theirs)}`);
}

/** A deep copy of pi's value with entry ids (in the id-carrying fields) mapped to ours. */
function mapIds<T>(value: T, toOurs: Map<string, string>): T {
  const walk = (node: unknown, key: string | null): unknown => {
    if (typeof node === "string" && key !== null && ID_FIELDS.has(key)) return toOurs.get(node) ?? node;
    if (Array.isArray(node)) return node.map((item) => walk(item, null));
    if (isPlainObject(node)) {
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) copy[k] = walk(v, k);
      return copy;
    }
    return node;
  };
  return walk(value, null) as T;
}

function ourView(file: string): OurView {
  const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
  const headerRecord = records.find((record) => record.kind === "header");
  const entries = records.flatMap((record) => (record.kind === "entry" ? [record.entry] : []));
  const tree = rebuild(sessionTreeProjection, records);
  const summary = selectSessionSummary(rebuild(sessionSummaryProjection, records), {
    path: file,
    mtimeMs: fs.statSync(file).mtimeMs,
  });
  return { records, header: headerRecord?.kind === "header" ? headerRecord.header : null, entries, tree, summary };
}

function typeKey(entry: SessionEntry): string {
  return entry.type === "message" ? `message:${String(entry.message.role)}` : entry.type;
}

function piView(corpus: SessionCorpus, file: string, index: number, ours: OurView): PiView {
  const copiesDir = path.join(corpus.harness.root, "pi-copies");
  fs.mkdirSync(copiesDir, { recursive: true });
  // open() may rewrite the file (v1 migration, bad header): always give it a copy.
  const copy = path.join(copiesDir, `${index}-${path.basename(file)}`);
  fs.writeFileSync(copy, fs.readFileSync(file));
  const manager = corpus.harness.pi.SessionManager.open(copy, copiesDir);
  const entries = manager.getEntries();
  const toOurs = new Map<string, string>();
  let alignmentError: string | null = null;
  if (entries.length !== ours.entries.length) {
    alignmentError = `entry count: leyline=${ours.entries.length} pi=${entries.length}`;
  } else {
    for (let i = 0; i < entries.length; i++) {
      const theirs = entries[i] as SessionEntry;
      const mine = ours.entries[i] as SessionEntry;
      if (typeKey(theirs) !== typeKey(mine)) {
        alignmentError = `entry ${i} type: leyline=${typeKey(mine)} pi=${typeKey(theirs)}`;
        break;
      }
      toOurs.set(theirs.id, mine.id);
    }
  }
  return { manager, entries, toOurs, alignmentError };
}

/** Normalized tree: every node's children ids (ordered) and label, plus the ordered roots. */
interface TreeShape {
  roots: string[];
  children: Record<string, string[]>;
  labels: Record<string, string>;
}

function piTreeShape(view: PiView): TreeShape {
  const shape: TreeShape = { roots: [], children: {}, labels: {} };
  const map = (id: string): string => view.toOurs.get(id) ?? id;
  const stack: SessionTreeNode[] = [];
  for (const root of view.manager.getTree()) {
    shape.roots.push(map(root.entry.id));
    stack.push(root);
  }
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    const id = map(node.entry.id);
    if (node.children.length > 0) shape.children[id] = node.children.map((child) => map(child.entry.id));
    if (node.label !== undefined) shape.labels[id] = node.label;
    stack.push(...node.children);
  }
  return shape;
}

function ourTreeShape(view: OurView): TreeShape {
  const shape: TreeShape = { roots: [...view.tree.roots], children: {}, labels: {} };
  for (const entry of view.entries) {
    const children = childrenOf(view.tree, entry.id);
    if (children.length > 0) shape.children[entry.id] = [...children];
    const label = labelOf(view.tree, entry.id);
    if (label !== undefined) shape.labels[entry.id] = label;
  }
  return shape;
}

/** pi's listing truncated to Leyline's 140-character limit (without splitting a surrogate pair). */
function truncated(text: string): string {
  if (text.length <= 140) return text;
  const code = text.charCodeAt(139);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? 139 : 140);
}

function expectedSummary(info: SessionInfo): Record<string, unknown> {
  return {
    id: info.id,
    path: info.path,
    cwd: info.cwd,
    name: info.name,
    parentSessionPath: info.parentSessionPath,
    messageCount: info.messageCount,
    firstMessage: truncated(info.firstMessage),
    modified: info.modified.toISOString(),
    timestamp: Number.isNaN(info.created.getTime()) ? undefined : info.created.toISOString(),
  };
}

function comparableSummary(summary: SessionSummary): Record<string, unknown> {
  const { id, path: file, cwd, name, parentSessionPath, messageCount, firstMessage, modified, timestamp } = summary;
  return { id, path: file, cwd, name, parentSessionPath, messageCount, firstMessage, modified, timestamp };
}

function contextOf(context: SessionContext): Record<string, unknown> {
  return { messages: context.messages, model: context.model, thinkingLevel: context.thinkingLevel };
}

/** The part of a transcript entry this suite checks against pi's branch. */
type TranscriptSkeleton = Record<string, unknown>;

function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((block: unknown) =>
      isPlainObject(block) && block["type"] === "text" && typeof block["text"] === "string" ? [block["text"]] : [],
    )
    .join("\n");
}

/**
 * The transcript skeleton of a branch by the spec's layout: one entry per user/assistant/custom message,
 * custom_message, model/thinking change, compaction, branch summary and pi 1.x system message; each assistant tool call becomes a
 * tool entry right after its message, completed by the later toolResult with its call id (an unmatched
 * result is a tool entry of its own); a usage entry is an entry of its own; a context_edit shows its target as
 * the model sees it (no text, or the replacement's); labels, session_info and custom entries show nothing.
 */
function expectedTranscript(branch: readonly SessionEntry[]): TranscriptSkeleton[] {
  const out: TranscriptSkeleton[] = [];
  const pending = new Map<string, TranscriptSkeleton>();
  for (const entry of branch) {
    switch (entry.type) {
      case "message": {
        const message = entry.message as unknown as Record<string, unknown>;
        const role = message["role"];
        if (role === "user" || role === "assistant" || role === "custom") {
          out.push({ type: "message", id: entry.id, role, text: blocksText(message["content"]) });
          if (role !== "assistant" || !Array.isArray(message["content"])) break;
          for (const block of message["content"] as unknown[]) {
            if (!isPlainObject(block) || block["type"] !== "toolCall") continue;
            const tool = {
              type: "tool",
              callEntryId: entry.id,
              toolCallId: block["id"],
              name: block["name"],
              status: "pending",
              resultEntryId: null,
              resultText: "",
            };
            pending.set(String(block["id"]), tool);
            out.push(tool);
          }
        } else if (role === "toolResult") {
          const callId = String(message["toolCallId"]);
          const status = message["isError"] === true ? "error" : "done";
          const resultText = blocksText(message["content"]);
          const tool = pending.get(callId);
          if (tool) {
            Object.assign(tool, { status, resultEntryId: entry.id, resultText });
            pending.delete(callId);
          } else {
            out.push({
              type: "tool",
              callEntryId: null,
              toolCallId: callId,
              name: message["toolName"],
              status,
              resultEntryId: entry.id,
              resultText,
            });
          }
        } else if (role === "bashExecution") {
          out.push({ type: "bash", id: entry.id });
        } else if (role === "system") {
          // pi 1.x stores the system prompt and tools it sent (then patches): one system entry each.
          out.push({ type: "system", id: entry.id });
        }
        break;
      }
      case "custom_message":
        out.push({ type: "message", id: entry.id, role: "custom", text: blocksText(entry.content) });
        break;
      case "model_change":
      case "thinking_level_change":
      case "compaction":
      case "branch_summary":
      case "usage":
        out.push({ type: entry.type, id: entry.id });
        break;
      case "context_edit": {
        // what the model sees of the target: no text when omitted, the replacement's text otherwise
        const text = entry.replacement === null ? "" : blocksText(entry.replacement.content);
        const message = out.find((item) => item["type"] === "message" && item["id"] === entry.targetId);
        if (message) message["text"] = text;
        const tool = out.find((item) => item["type"] === "tool" && item["resultEntryId"] === entry.targetId);
        if (tool) tool["resultText"] = text;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

function transcriptSkeleton(entry: Record<string, unknown>): TranscriptSkeleton {
  switch (entry["type"]) {
    case "message":
      return { type: "message", id: entry["id"], role: entry["role"], text: entry["text"] };
    case "tool": {
      const { callEntryId, toolCallId, name, status, resultEntryId, resultText } = entry;
      return { type: "tool", callEntryId, toolCallId, name, status, resultEntryId, resultText };
    }
    default:
      return { type: entry["type"], id: entry["id"] };
  }
}

describe("Leyline read side agrees with pi on SDK-written sessions", () => {
  let corpus: SessionCorpus;
  const ours = new Map<string, OurView>();
  const pis = new Map<string, PiView>();
  let listing: SessionInfo[] = [];

  beforeAll(async () => {
    corpus = await buildSessionCorpus();
    // List first: the copies pi opens live outside the sessions folder, but list before creating them anyway.
    listing = await corpus.harness.pi.SessionManager.listAll();
    corpus.files.forEach((file, index) => {
      const view = ourView(file);
      ours.set(file, view);
      pis.set(file, piView(corpus, file, index, view));
    });
  }, 120_000);

  afterAll(async () => {
    await corpus?.harness.dispose();
  });

  /** Runs `check` per file and fails with every reported difference, prefixed by file and check. */
  function compareEachFile(check: string, run: (file: string, mine: OurView, theirs: PiView, out: string[]) => void): void {
    const failures: string[] = [];
    for (const file of corpus.files) {
      const out: string[] = [];
      run(file, ours.get(file) as OurView, pis.get(file) as PiView, out);
      for (const line of out.slice(0, MAX_LINES_PER_CHECK)) failures.push(`${path.basename(file)} [${check}] ${line}`);
    }
    expect(failures, failures.join("\n")).toEqual([]);
  }

  it("generates the scenarios it claims to cover", () => {
    const generated = corpus.files.filter((file) => !corpus.v1Files.includes(file));
    const all = generated.flatMap((file) => (pis.get(file) as PiView).entries);
    const kinds = new Set(all.map(typeKey));
    for (const kind of [
      "message:user",
      "message:assistant",
      "message:toolResult",
      "model_change",
      "thinking_level_change",
      "compaction",
      "branch_summary",
      "custom",
      "custom_message",
      "label",
      "session_info",
      "usage",
      "context_edit",
      "message:system",
    ]) {
      expect(kinds, `no ${kind} entry in the corpus`).toContain(kind);
    }
    const stopReasons = new Set(
      all.flatMap((entry) => (entry.type === "message" && entry.message.role === "assistant" ? [entry.message.stopReason] : [])),
    );
    expect([...stopReasons].sort()).toEqual(["aborted", "error", "stop", "toolUse"]);
    const toolNames = new Set(
      all.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message.toolName] : [])),
    );
    expect([...toolNames].sort()).toEqual(["bash", "ls", "read"]);
    // main holds three branches (two in-place navigations), forks point at their parent file.
    const main = pis.get(corpus.mainFile) as PiView;
    const leaves = main.entries.filter((entry) => main.manager.getChildren(entry.id).length === 0);
    expect(leaves.length).toBeGreaterThanOrEqual(3);
    const forks = corpus.files.filter((file) => (pis.get(file) as PiView).manager.getHeader()?.parentSession === corpus.mainFile);
    expect(forks.length).toBe(3);
    expect(corpus.v1Files).toHaveLength(2);
    for (const file of corpus.v1Files) expect(ours.get(file)?.records[0]).toMatchObject({ kind: "header" });
    expect(corpus.files.length).toBe(7);
  });

  it("decodes the same entries pi loads (v1 ids mapped by position)", () => {
    compareEachFile("entries", (_file, mine, theirs, out) => {
      if (theirs.alignmentError) {
        out.push(theirs.alignmentError);
        return;
      }
      diffValues(mine.header, theirs.manager.getHeader(), "header", out);
      diffValues(mine.entries, mapIds(theirs.entries, theirs.toOurs), "entries", out);
      const malformed = mine.records.filter((record) => record.kind === "malformed");
      if (malformed.length > 0) out.push(`malformed records: ${show(malformed)}`);
    });
  });

  it("summarizes every file as SessionManager.listAll does", () => {
    const failures: string[] = [];
    const piPaths = listing.map((info) => info.path).sort();
    diffValues([...corpus.files].sort(), piPaths, "paths (leyline = files in the sessions folder)", failures);
    const oursByPath = corpus.files.map((file) => ours.get(file)?.summary ?? null);
    diffValues(oursByPath.map((summary) => (summary === null ? null : summary.path)).sort(), piPaths, "paths with a summary", failures);
    for (const info of listing) {
      const summary = ours.get(info.path)?.summary;
      if (!summary) {
        failures.push(`${path.basename(info.path)} [summary] leyline has no summary`);
        continue;
      }
      const out: string[] = [];
      diffValues(comparableSummary(summary), expectedSummary(info), "summary", out);
      for (const line of out) failures.push(`${path.basename(info.path)} [summary] ${line}`);
    }
    expect(failures, failures.join("\n")).toEqual([]);
  });

  it("finds the same active branch as getBranch()", () => {
    compareEachFile("active branch", (_file, mine, theirs, out) => {
      const expected = theirs.manager.getBranch().map((entry) => theirs.toOurs.get(entry.id) ?? `pi:${entry.id}`);
      diffValues(
        activeBranch(mine.tree).map((entry) => entry.id),
        expected,
        "activeBranch ids",
        out,
      );
      diffValues(mine.tree.leafId, theirs.toOurs.get(theirs.manager.getLeafId() ?? "") ?? null, "leafId", out);
    });
  });

  it("walks the same path to every entry as getBranch(id)", () => {
    compareEachFile("pathTo", (_file, mine, theirs, out) => {
      if (theirs.alignmentError) return; // reported by the entries check
      for (const entry of theirs.entries) {
        const ourId = theirs.toOurs.get(entry.id) as string;
        const expected = theirs.manager.getBranch(entry.id).map((e) => theirs.toOurs.get(e.id) ?? `pi:${e.id}`);
        diffValues(
          pathTo(mine.tree, ourId).map((e) => e.id),
          expected,
          `pathTo(${ourId})`,
          out,
        );
      }
    });
  });

  it("builds the same tree and labels as getTree() and getLabel()", () => {
    compareEachFile("tree", (_file, mine, theirs, out) => {
      if (theirs.alignmentError) return;
      diffValues(ourTreeShape(mine), piTreeShape(theirs), "tree", out);
      for (const entry of theirs.entries) {
        const ourId = theirs.toOurs.get(entry.id) as string;
        diffValues(labelOf(mine.tree, ourId), theirs.manager.getLabel(entry.id), `label(${ourId})`, out);
      }
    });
  });

  it("gives pi's buildSessionContext the same context as pi's own loading", () => {
    const { buildSessionContext } = corpus.harness.pi;
    compareEachFile("context", (_file, mine, theirs, out) => {
      const expected = mapIds(contextOf(theirs.manager.buildSessionContext()), theirs.toOurs);
      diffValues(contextOf(buildSessionContext(mine.entries, mine.tree.leafId)), expected, "context(leaf)", out);
      if (theirs.alignmentError || theirs.entries.length > EVERY_LEAF_LIMIT) return;
      for (const entry of theirs.entries) {
        const ourId = theirs.toOurs.get(entry.id) as string;
        const theirsAt = mapIds(contextOf(buildSessionContext(theirs.entries, entry.id)), theirs.toOurs);
        diffValues(contextOf(buildSessionContext(mine.entries, ourId)), theirsAt, `context(${ourId})`, out);
      }
    });
  });

  it("lays out the active-branch transcript of pi's branch", async () => {
    // Imported here so that a transcript module still in progress fails this test only.
    const { transcriptProjection, selectTranscript } = await import("../../projections/transcript.projection.ts");
    compareEachFile("transcript", (_file, mine, theirs, out) => {
      const transcript = selectTranscript(rebuild(transcriptProjection, mine.records));
      const actual = transcript.map((entry) => transcriptSkeleton(entry as unknown as Record<string, unknown>));
      const expected = mapIds(expectedTranscript(theirs.manager.getBranch()), theirs.toOurs);
      diffValues(actual, expected, "transcript", out);
    });
  });

  it("shows every message as pi's buildSessionProjection gives it to the model (context edits applied)", async () => {
    const { transcriptProjection, selectTranscript } = await import("../../projections/transcript.projection.ts");
    const { buildSessionProjection } = corpus.harness.pi;
    let edited = 0;
    compareEachFile("model view", (_file, mine, theirs, out) => {
      if (theirs.alignmentError) return;
      const transcript = selectTranscript(rebuild(transcriptProjection, mine.records));
      const byId = new Map(transcript.map((entry) => [entry.id, entry]));
      const byResult = new Map(
        transcript.flatMap((entry) =>
          entry.type === "tool" && entry.resultEntryId !== null ? [[entry.resultEntryId, entry] as const] : [],
        ),
      );
      for (const projected of buildSessionProjection(theirs.entries, theirs.manager.getLeafId()).entries) {
        const source = projected.sourceEntry;
        const id = theirs.toOurs.get(source.id) as string;
        const seen = projected.messages.map((message) => blocksText((message as unknown as Record<string, unknown>)["content"])).join("\n");
        const role = source.type === "message" ? source.message.role : source.type === "custom_message" ? "custom" : null;
        if (role === "toolResult") {
          const tool = byResult.get(id);
          if (tool?.type !== "tool") out.push(`${id}: no tool entry for the result`);
          else if (tool.resultText !== seen) out.push(`${id}: tool result leyline=${show(tool.resultText)} model sees ${show(seen)}`);
          if (tool?.contextEdit) edited++;
          continue;
        }
        if (role !== "user" && role !== "assistant" && role !== "custom") continue;
        const entry = byId.get(id);
        if (entry?.type !== "message") {
          out.push(`${id}: no message entry`);
          continue;
        }
        if (entry.text !== seen) out.push(`${id}: text leyline=${show(entry.text)} model sees ${show(seen)}`);
        const omitted = projected.messages.length === 0;
        if (omitted !== (entry.contextEdit?.kind === "omitted"))
          out.push(`${id}: omitted=${omitted} but contextEdit=${show(entry.contextEdit)}`);
        if (entry.contextEdit) edited++;
      }
    });
    // the corpus' edits: an assistant attempt and its tool result omitted, a user message replaced
    expect(edited).toBeGreaterThanOrEqual(3);
  });

  it("counts the model usage of every file as pi's getSessionStats does", async () => {
    const { harness } = corpus;
    const failures: string[] = [];
    for (const file of corpus.files.filter((candidate) => !corpus.v1Files.includes(candidate))) {
      const mine = rebuild(sessionSummaryProjection, (ours.get(file) as OurView).records).usage;
      const copiesDir = path.join(harness.root, "stats-copies");
      fs.mkdirSync(copiesDir, { recursive: true });
      const copy = path.join(copiesDir, path.basename(file));
      fs.writeFileSync(copy, fs.readFileSync(file));
      const session = await harness.createSession({ sessionManager: harness.pi.SessionManager.open(copy, copiesDir), bind: false });
      const stats = session.getSessionStats();
      const theirs = {
        input: stats.tokens.input,
        output: stats.tokens.output,
        cacheRead: stats.tokens.cacheRead,
        cacheWrite: stats.tokens.cacheWrite,
        totalTokens: stats.tokens.total,
      };
      const ourTokens = {
        input: mine.input,
        output: mine.output,
        cacheRead: mine.cacheRead,
        cacheWrite: mine.cacheWrite,
        totalTokens: mine.totalTokens,
      };
      if (JSON.stringify(ourTokens) !== JSON.stringify(theirs))
        failures.push(`${path.basename(file)}: tokens leyline=${show(ourTokens)} pi=${show(theirs)}`);
      if (Math.abs(mine.cost - stats.cost) > 1e-12) failures.push(`${path.basename(file)}: cost leyline=${mine.cost} pi=${stats.cost}`);
    }
    expect(failures, failures.join("\n")).toEqual([]);
    const main = rebuild(sessionSummaryProjection, (ours.get(corpus.mainFile) as OurView).records).usage;
    expect(main.cacheWrite).toBeGreaterThanOrEqual(1200); // the cache_warm usage entry counts
  });
});
