/**
 * fast-check arbitraries for realistic pi session files (JSONL), for any test that needs session logs.
 *
 * Main entry points:
 * - `v3SessionFileArb(options)`: a current-format file: header + entries of every type whose ids/parentIds form
 *   a tree with branches (and optionally orphans and extra roots), labels (set, changed, cleared),
 *   session_info names, compactions pointing at an earlier entry of their path, custom entries,
 *   custom_message, branch_summary and entries of unknown (future) types.
 * - `v2SessionFileArb(options)`: version 2 (ids present; some messages use the old `hookMessage` role).
 * - `v1SessionFileArb(options)`: version 1 (no `version`, no ids; compactions carry `firstKeptEntryIndex`,
 *   an index into the file's parsed JSON lines with the header at 0, computed after the noise is laid out).
 * - `sessionFileArb(options)`: any of the three.
 * - `entryBodyArb(kind)`, `textArb`, `sessionIdArb`: the building blocks.
 *
 * Every generated file is a `GeneratedSessionFile`: the JSON objects as written plus the physical lines and the
 * full text. Text fields mix ASCII with multi-byte UTF-8 (accents, CJK, emoji) so byte-level cuts land inside
 * characters. Noise (`SessionFileOptions.noise`) adds blank lines, whitespace-only lines, invalid JSON and
 * JSON non-objects; CRLF line ends are optional. Without noise, a file is exactly what pi would read.
 * Timestamps grow with the file (as in pi-written files), so pi's timestamp-sorted children equal file order.
 */
import fc from "fast-check";

export type JsonObject = Record<string, unknown>;

export interface SessionFileOptions {
  /** Maximum number of entries (default 30). */
  maxEntries?: number;
  /**
   * Allow extra roots and orphans: entries whose parentId names no entry, or an entry further down the file
   * (pi never writes either; readers must cope) (default false). A forward reference can close a parent
   * cycle: pi's own getBranch/buildSessionContext never return on those, so filter them out before asking pi.
   */
  orphans?: boolean;
  /** Insert blank/whitespace lines, invalid JSON and JSON non-objects between lines (default false). */
  noise?: boolean;
  /** End some lines with "\r\n" (default false). */
  crlf?: boolean;
}

export interface GeneratedSessionFile {
  version: 1 | 2 | 3;
  /** The header object as written (v1: no `version` field). */
  header: JsonObject;
  /** The entry objects as written, in file order (v1: without id/parentId). */
  entries: JsonObject[];
  /** Physical lines without terminators (noise included). */
  lines: string[];
  /** The whole file: lines joined with their terminators, ending with a terminator. */
  text: string;
  /** For each physical line: the index into `entries` it holds, -1 for the header, null for noise. */
  lineEntryIndex: (number | null)[];
}

const multiByteSamples = ["héllo wörld", "naïve café", "日本語のテキスト", "emoji 🎉🚀", "Ωμέγα", "ß→∑", "a\u00a0b", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"];

/** Text mixing ASCII, multi-byte UTF-8 samples and arbitrary graphemes. */
export const textArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom(...multiByteSamples) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.constantFrom(...multiByteSamples, "\n", '"', "\\", " "), { maxLength: 6 }).map((parts) => parts.join("")),
  },
);

/** A pi-like session id (UUID). */
export const sessionIdArb: fc.Arbitrary<string> = fc.uuid();

/** JSON values as they survive a JSON round trip (fast-check may generate -0, which JSON writes as 0). */
const jsonDataArb: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, "0");

export type EntryKind =
  | "user"
  | "assistant"
  | "toolResult"
  | "customRole"
  | "thinking_level_change"
  | "model_change"
  | "compaction"
  | "branch_summary"
  | "custom"
  | "custom_message"
  | "label"
  | "session_info"
  | "systemMessage"
  | "usage"
  | "context_edit"
  | "unknown";

const usageArb = fc.record({
  input: fc.nat(5000),
  output: fc.nat(5000),
  cacheRead: fc.nat(5000),
  cacheWrite: fc.nat(5000),
});

/**
 * The body of one entry of the given kind, without `id`, `parentId`, `timestamp` and the tree references
 * (`targetId`, `firstKeptEntryId`, `fromId`), which the file arbitraries fill in.
 */
export function entryBodyArb(kind: EntryKind): fc.Arbitrary<JsonObject> {
  switch (kind) {
    case "user":
      return fc.record({ text: textArb, blocks: fc.boolean(), at: fc.nat() }).map(({ text, blocks, at }) => ({
        type: "message",
        message: { role: "user", content: blocks ? [{ type: "text", text }] : text, timestamp: 1_700_000_000_000 + at },
      }));
    case "assistant":
      return fc
        .record({
          text: textArb,
          thinking: fc.option(textArb, { nil: undefined }),
          tool: fc.option(fc.constantFrom("read", "bash", "edit"), { nil: undefined }),
          usage: usageArb,
          at: fc.nat(),
        })
        .map(({ text, thinking, tool, usage, at }) => ({
          type: "message",
          message: {
            role: "assistant",
            content: [
              ...(thinking === undefined ? [] : [{ type: "thinking", thinking }]),
              { type: "text", text },
              ...(tool === undefined ? [] : [{ type: "toolCall", id: `call_${at}`, name: tool, arguments: { path: "src/ü.ts" } }]),
            ],
            api: "anthropic-messages",
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage: {
              ...usage,
              totalTokens: usage.input + usage.output,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            },
            stopReason: tool === undefined ? "stop" : "toolUse",
            timestamp: 1_700_000_000_000 + at,
          },
        }));
    case "toolResult":
      return fc.record({ text: textArb, isError: fc.boolean(), at: fc.nat() }).map(({ text, isError, at }) => ({
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: `call_${at}`,
          toolName: "read",
          content: [{ type: "text", text }],
          isError,
          timestamp: 1_700_000_000_000 + at,
        },
      }));
    case "customRole":
      return fc.record({ text: textArb, at: fc.nat() }).map(({ text, at }) => ({
        type: "message",
        message: { role: "custom", customType: "note", content: text, display: true, timestamp: 1_700_000_000_000 + at },
      }));
    case "thinking_level_change":
      return fc
        .constantFrom("off", "minimal", "low", "medium", "high", "xhigh")
        .map((thinkingLevel) => ({ type: "thinking_level_change", thinkingLevel }));
    case "model_change":
      return fc
        .constantFrom(["anthropic", "claude-opus-4-5"], ["openai", "gpt-5.1-codex"], ["faux", "faux-1"])
        .map(([provider, modelId]) => ({ type: "model_change", provider, modelId }));
    case "compaction":
      return fc.record({ summary: textArb, tokensBefore: fc.nat(200_000) }).map((r) => ({ type: "compaction", ...r }));
    case "branch_summary":
      return textArb.map((summary) => ({ type: "branch_summary", summary }));
    case "custom":
      return fc
        .record({ customType: fc.constantFrom("research", "todo", "ext.state"), data: jsonDataArb })
        .map((r) => ({ type: "custom", ...r }));
    case "custom_message":
      return fc
        .record({ customType: fc.constantFrom("research", "notice"), content: textArb, display: fc.boolean() })
        .map((r) => ({ type: "custom_message", ...r }));
    case "label":
      // undefined (omitted from the JSON) and "" both clear the label
      return fc
        .oneof({ weight: 4, arbitrary: textArb.filter((t) => t !== "") }, { weight: 1, arbitrary: fc.constantFrom("", undefined) })
        .map((label) => (label === undefined ? { type: "label" } : { type: "label", label }));
    case "session_info":
      return fc.oneof(textArb, fc.constant("")).map((name) => ({ type: "session_info", name }));
    case "systemMessage": {
      // pi 1.x: the prompt sections and tools it sent, or a patch (null removes a section)
      const name = fc.constantFrom("preamble", "tools", "cwd", "leyline_research_protocol");
      const tool = fc.record({ name: fc.constantFrom("read", "bash", "edit"), description: textArb });
      return fc
        .record({
          sections: fc.dictionary(name, fc.option(textArb, { nil: null })),
          toolsAdded: fc.array(tool, { maxLength: 3 }),
          toolsRemoved: fc.array(fc.record({ name: fc.constantFrom("read", "bash", "edit") }), { maxLength: 2 }),
          at: fc.nat(),
        })
        .map(({ sections, toolsAdded, toolsRemoved, at }) => ({
          type: "message",
          message: { role: "system", content: "", sections, toolsAdded, toolsRemoved, timestamp: 1_700_000_000_000 + at },
        }));
    }
    case "usage":
      return usageArb.map((usage) => ({
        type: "usage",
        kind: "cache_warm",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          ...usage,
          totalTokens: usage.input + usage.output,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 },
        },
      }));
    case "context_edit":
      // targetId is filled in by the file arbitraries (an earlier entry)
      return fc
        .option(textArb, { nil: null })
        .map((text) => ({ type: "context_edit", replacement: text === null ? null : { content: text } }));
    case "unknown":
      return fc.record({ type: fc.constantFrom("x_future_entry", "bookmark_v9", "telemetry"), payload: jsonDataArb });
  }
}

const v3Kinds: readonly EntryKind[] = [
  "user",
  "user",
  "assistant",
  "assistant",
  "assistant",
  "toolResult",
  "toolResult",
  "customRole",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "unknown",
  "systemMessage",
  "usage",
  "context_edit",
];
const v1Kinds: readonly EntryKind[] = [
  "user",
  "assistant",
  "assistant",
  "toolResult",
  "thinking_level_change",
  "model_change",
  "compaction",
];

/** How an entry attaches: to the previous entry (a chain), to an earlier entry (a branch), nowhere, or to a missing id. */
type Attach = { kind: "chain" } | { kind: "branch"; pick: number } | { kind: "root" } | { kind: "orphan"; pick: number };

function attachArb(orphans: boolean): fc.Arbitrary<Attach> {
  const options = [
    { weight: 12, arbitrary: fc.constant<Attach>({ kind: "chain" }) },
    { weight: 3, arbitrary: fc.nat().map<Attach>((pick) => ({ kind: "branch", pick })) },
  ];
  if (orphans) {
    options.push({ weight: 1, arbitrary: fc.constant<Attach>({ kind: "root" }) });
    options.push({ weight: 1, arbitrary: fc.nat().map<Attach>((pick) => ({ kind: "orphan", pick })) });
  }
  return fc.oneof(...options);
}

interface EntryPlan {
  body: JsonObject;
  attach: Attach;
  /** Chooses tree references (label target, first kept entry) by `ref % (candidates)`. */
  ref: number;
}

function plansArb(kinds: readonly EntryKind[], options: SessionFileOptions): fc.Arbitrary<EntryPlan[]> {
  const plan = fc.record({
    body: fc.constantFrom(...kinds).chain(entryBodyArb),
    attach: attachArb(options.orphans ?? false),
    ref: fc.nat(),
  });
  return fc.array(plan, { maxLength: options.maxEntries ?? 30 });
}

/** A noise line that is blank, whitespace, invalid JSON or a JSON non-object. */
export const noiseLineArb: fc.Arbitrary<string> = fc.constantFrom(
  "",
  "   ",
  "\t",
  '{"type":"message","broken',
  "not json at all ✗",
  "42",
  "null",
  "[1,2,3]",
  '"just a string"',
);

interface Layout {
  lines: string[];
  lineEntryIndex: (number | null)[];
  crlf: boolean[];
}

/** Lays out header + entries with noise lines (none before the header when `clean header` matters). */
function layoutArb(count: number, options: SessionFileOptions): fc.Arbitrary<{ noise: string[][]; crlf: boolean[] }> {
  const noiseSlot = options.noise === true ? fc.array(noiseLineArb, { maxLength: 2 }) : fc.constant<string[]>([]);
  const crlfFlag = options.crlf === true ? fc.boolean() : fc.constant(false);
  return fc.record({
    // slot i holds the noise after the header (i = 0) or after entry i - 1; noise before the header would
    // make JSON non-objects the header, which is a different test (see the not-a-session tests)
    noise: fc.array(noiseSlot, { minLength: count + 1, maxLength: count + 1 }),
    crlf: fc.array(crlfFlag, { minLength: 3 * count + 3, maxLength: 3 * count + 3 }),
  });
}

function render(objects: JsonObject[], noise: string[][], crlfFlags: boolean[]): Layout & { text: string } {
  const lines: string[] = [];
  const lineEntryIndex: (number | null)[] = [];
  objects.forEach((object, i) => {
    lines.push(JSON.stringify(object));
    lineEntryIndex.push(i - 1);
    for (const extra of noise[i] ?? []) {
      lines.push(extra);
      lineEntryIndex.push(null);
    }
  });
  const crlf = lines.map((_, i) => crlfFlags[i] === true);
  const text = lines.map((line, i) => line + (crlf[i] ? "\r\n" : "\n")).join("");
  return { lines, lineEntryIndex, crlf, text };
}

/** Index of each object (header = 0) among the lines JSON.parse accepts (pi's `firstKeptEntryIndex` space). */
function parsedIndices(lines: readonly string[], lineEntryIndex: readonly (number | null)[], objectCount: number): number[] {
  const result = new Array<number>(objectCount).fill(-1);
  let parsed = 0;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      JSON.parse(line);
    } catch {
      return;
    }
    const entryIndex = lineEntryIndex[i];
    if (entryIndex !== null && entryIndex !== undefined) result[entryIndex + 1] = parsed;
    parsed++;
  });
  return result;
}

function timestampAt(i: number): string {
  return new Date(Date.UTC(2025, 0, 1, 12, 0, 0) + i * 1000).toISOString();
}

/** Builds v2/v3 entries with ids from plans. */
function treeEntries(plans: EntryPlan[], ids: number[], version: 2 | 3): JsonObject[] {
  const entryIds = plans.map((_, i) => hex8(ids[i] as number));
  const missing = (pick: number): string => `${hex8(((ids[pick % ids.length] as number) ^ 0x5a5a5a5a) >>> 0).slice(0, 7)}z`; // never an id (z is not hex)
  const entries: JsonObject[] = [];
  let leaf: string | null = null;
  plans.forEach((plan, i) => {
    let parentId: string | null;
    switch (plan.attach.kind) {
      case "chain":
        parentId = leaf;
        break;
      case "branch":
        parentId = i === 0 ? null : (entryIds[plan.attach.pick % i] as string);
        break;
      case "root":
        parentId = null;
        break;
      case "orphan": {
        // half of the orphans name an entry further down the file (adopted once it arrives), half a missing id
        const later = plans.length - i - 1;
        const pick = plan.attach.pick;
        parentId = pick % 2 === 0 && later > 0 ? (entryIds[i + 1 + ((pick >> 1) % later)] as string) : missing(pick);
        break;
      }
    }
    const id = entryIds[i] as string;
    const entry: JsonObject = { ...plan.body, id, parentId, timestamp: timestampAt(i + 1) };
    const earlier = entryIds.slice(0, i);
    if (entry["type"] === "label" || entry["type"] === "context_edit")
      entry["targetId"] = earlier.length === 0 ? id : earlier[plan.ref % earlier.length];
    if (entry["type"] === "branch_summary") entry["fromId"] = earlier.length === 0 ? "root" : earlier[plan.ref % earlier.length];
    if (entry["type"] === "compaction") {
      // first kept entry: an ancestor on this entry's own path (or itself when it has none)
      const path: string[] = [];
      const byId = new Map(entries.map((e) => [e["id"] as string, e]));
      let cursor: string | null = parentId;
      while (cursor !== null && byId.has(cursor) && path.length <= entries.length) {
        path.push(cursor);
        const parent: unknown = byId.get(cursor)?.["parentId"];
        cursor = typeof parent === "string" ? parent : null;
      }
      entry["firstKeptEntryId"] = path.length === 0 ? id : path[plan.ref % path.length];
    }
    if (version === 2 && entry["type"] === "message") {
      const message = entry["message"] as JsonObject;
      if (message["role"] === "custom") entry["message"] = { ...message, role: "hookMessage" };
    }
    entries.push(entry);
    leaf = id;
  });
  return entries;
}

function idsArb(count: number): fc.Arbitrary<number[]> {
  return fc.uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { minLength: count, maxLength: count });
}

function treeFileArb(version: 2 | 3, options: SessionFileOptions): fc.Arbitrary<GeneratedSessionFile> {
  return fc
    .record({
      sessionId: sessionIdArb,
      plans: plansArb(v3Kinds, options),
      parentSession: fc.option(fc.constant("/tmp/old.jsonl"), { nil: undefined }),
    })
    .chain(({ sessionId, plans, parentSession }) =>
      fc.record({ ids: idsArb(plans.length), layout: layoutArb(plans.length, options) }).map(({ ids, layout }) => {
        const header: JsonObject = { type: "session", version, id: sessionId, timestamp: timestampAt(0), cwd: "/home/ünï/proj" };
        if (parentSession !== undefined) header["parentSession"] = parentSession;
        const entries = treeEntries(plans, ids, version);
        const rendered = render([header, ...entries], layout.noise, layout.crlf);
        return { version, header, entries, lines: rendered.lines, text: rendered.text, lineEntryIndex: rendered.lineEntryIndex };
      }),
    );
}

/** A version-3 file: a tree with branches, labels, names, compactions, custom and unknown entries. */
export function v3SessionFileArb(options: SessionFileOptions = {}): fc.Arbitrary<GeneratedSessionFile> {
  return treeFileArb(3, options);
}

/** A version-2 file: ids present, custom-role messages written with the old `hookMessage` role. */
export function v2SessionFileArb(options: SessionFileOptions = {}): fc.Arbitrary<GeneratedSessionFile> {
  return treeFileArb(2, options);
}

/**
 * A version-1 file: header without `version` (sometimes `version: 1`) and with the old provider/model fields;
 * entries without ids; compactions carry `firstKeptEntryIndex` pointing at an earlier entry, the compaction
 * itself, or occasionally the header or past the end (edge cases pi resolves to no id).
 */
export function v1SessionFileArb(options: SessionFileOptions = {}): fc.Arbitrary<GeneratedSessionFile> {
  const plan = fc.record({ body: fc.constantFrom(...v1Kinds).chain(entryBodyArb), ref: fc.nat(), odd: fc.nat(20) });
  return fc
    .record({ sessionId: sessionIdArb, plans: fc.array(plan, { maxLength: options.maxEntries ?? 30 }), explicitVersion: fc.boolean() })
    .chain(({ sessionId, plans, explicitVersion }) =>
      layoutArb(plans.length, options).map((layout) => {
        const header: JsonObject = {
          type: "session",
          id: sessionId,
          timestamp: timestampAt(0),
          cwd: "/home/ünï/proj",
          provider: "anthropic",
          modelId: "claude-sonnet-4-5",
          thinkingLevel: "off",
        };
        if (explicitVersion) header["version"] = 1;
        const entries: JsonObject[] = plans.map((p, i) => ({ ...p.body, timestamp: timestampAt(i + 1) }));
        // lay out once to learn the parsed indices, then fill in firstKeptEntryIndex (line lengths don't matter)
        const draft = render([header, ...entries], layout.noise, layout.crlf);
        const parsedIndex = parsedIndices(draft.lines, draft.lineEntryIndex, entries.length + 1);
        plans.forEach((p, i) => {
          const entry = entries[i] as JsonObject;
          if (entry["type"] !== "compaction") return;
          entry["firstKeptEntryIndex"] =
            p.odd === 0 ? 0 : p.odd === 1 ? parsedIndex.length + 5 : (parsedIndex[1 + (p.ref % (i + 1))] as number);
        });
        const rendered = render([header, ...entries], layout.noise, layout.crlf);
        return {
          version: 1 as const,
          header,
          entries,
          lines: rendered.lines,
          text: rendered.text,
          lineEntryIndex: rendered.lineEntryIndex,
        };
      }),
    );
}

/** Any version (1, 2 or 3). */
export function sessionFileArb(options: SessionFileOptions = {}): fc.Arbitrary<GeneratedSessionFile> {
  return fc.oneof(v3SessionFileArb(options), v2SessionFileArb(options), v1SessionFileArb(options));
}
