/**
 * The wire form of transcript entries on the events socket (`session_snapshot`, `session_delta`): a
 * TranscriptEntry without the fields that can be derived from its other fields. A message's `text` is its text
 * blocks joined with "\n" and its `copyText` is that text, so a 20 KB reply would otherwise travel three times;
 * a tool's, bash run's or change's `copyText` is made from its other fields; empty rollout feedback is the
 * default.
 *
 * A field is left out only when it equals what `unpackEntry` derives, so the round trip is exact (a property
 * test: `unpackEntry(packEntry(e))` equals `e` for every entry the transcript builder makes, and for entries
 * whose fields do not follow the derivation rules). HTTP responses keep the spec's full SessionDetail.
 *
 * Pure; the input entry is never mutated.
 */
import type { TranscriptBlock, TranscriptEntry } from "./transcript-types.ts";

/** A packed entry: a TranscriptEntry with some derivable fields absent. */
export type WireTranscriptEntry = Record<string, unknown> & { id: string; type: string };

type Derivation = (entry: Record<string, unknown>) => unknown;

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function joinedText(entry: Record<string, unknown>): string {
  const blocks = entry["blocks"];
  if (!Array.isArray(blocks)) return "";
  const texts: string[] = [];
  for (const block of blocks as TranscriptBlock[]) if (block?.type === "text") texts.push(block.text);
  return texts.join("\n");
}

/**
 * Per entry type, the derivable fields in the order they are derived on unpack (a later rule may read a field an
 * earlier one restored: a message's copyText is its text).
 */
function derivations(type: string): ReadonlyArray<readonly [string, Derivation]> {
  switch (type) {
    case "message":
      return [
        ["text", joinedText],
        ["copyText", (e) => e["text"]],
      ];
    case "tool":
      return [["copyText", (e) => (str(e["resultText"]) === "" ? e["name"] : e["resultText"])]];
    case "bash":
      return [["copyText", (e) => (str(e["output"]) === "" ? `$ ${str(e["command"])}` : `$ ${str(e["command"])}\n${str(e["output"])}`)]];
    case "model_change":
      return [["copyText", (e) => `Model: ${str(e["provider"])}/${str(e["modelId"])}`]];
    case "thinking_level_change":
      return [["copyText", (e) => `Thinking level: ${str(e["thinkingLevel"])}`]];
    case "compaction":
    case "branch_summary":
      return [["copyText", (e) => e["summary"]]];
    default:
      return [];
  }
}

const FEEDBACK_DEFAULTS: ReadonlyArray<readonly [string, string]> = [
  ["rolloutFeedback", ""],
  ["rolloutFeedbackText", ""],
];

/**
 * The entry without the fields `unpackEntry` restores exactly. A derivation reads only fields that are never
 * dropped or that come earlier in its type's list (restored first, to the same value), so comparing each field
 * with its derivation from the whole entry is enough.
 */
export function packEntry(entry: TranscriptEntry): WireTranscriptEntry {
  const full = entry as unknown as Record<string, unknown>;
  const packed: Record<string, unknown> = { ...full };
  for (const [field, value] of FEEDBACK_DEFAULTS) if (packed[field] === value) delete packed[field];
  for (const [field, derive] of derivations(entry.type)) {
    if (field in full && full[field] === derive(full)) delete packed[field];
  }
  return packed as WireTranscriptEntry;
}

/** The full entry of a packed one. */
export function unpackEntry(wire: WireTranscriptEntry): TranscriptEntry {
  const entry: Record<string, unknown> = { ...wire };
  for (const [field, value] of FEEDBACK_DEFAULTS) if (!(field in entry)) entry[field] = value;
  for (const [field, derive] of derivations(wire.type)) if (!(field in entry)) entry[field] = derive(entry);
  return entry as unknown as TranscriptEntry;
}
