/**
 * Upgrades a version-1 or version-2 pi session file to version 3 on disk, before a runtime opens it.
 *
 * Why: pi's `SessionManager.open` migrates old files and rewrites them at once, giving v1 entries NEW RANDOM
 * ids, so the ids the page already shows (the read side migrates in memory with deterministic ids,
 * domain/deterministic-id.ts) go stale and a fork from a shown entry fails. Leyline therefore writes the v3
 * file itself, with exactly the ids the read side shows, and pi then opens a current file and rewrites nothing.
 *
 * How (`upgradeSessionFile`):
 * 1. the file's bytes are read once and decoded with the read side's decoder (`decodeSessionText`, the one
 *    migration; no second copy of its rules here);
 * 2. those bytes are written, unchanged, to `<trashDir>/<name>.v<N>-<ISO time>.jsonl` (never overwriting);
 * 3. the v3 text goes to a temp file beside the session and is renamed over it (atomic on one file system),
 *    unless the file changed meanwhile (then nothing is replaced and it throws).
 *
 * The v3 text: the migrated header first, then one `JSON.stringify` line per entry in file order (what pi's
 * own rewrite writes, but with the read side's ids). Lines that are not JSON and later duplicate headers are
 * kept verbatim (pi and the read side skip them, as before); JSON values that are not objects are dropped (pi
 * would take them for entries without ids and lose its leaf); blank lines go. A torn last line that parses
 * as an object is kept as the last entry (pi parses it too); any other torn tail is dropped. The trash copy
 * keeps every byte.
 */
import * as fs from "node:fs";
import { splitCompleteLines } from "../../domain/jsonl-lines.ts";
import { decodeLines, initialDecoderState, NOT_OBJECT } from "../../domain/session-decoder.ts";
import { keepTrashCopy, replaceFileAtomically } from "./trash-copy.ts";

export interface SessionUpgrade {
  /** The header version before the upgrade (1 when the header had none). */
  fromVersion: number;
  /** The byte-identical copy of the file as it was. */
  backupPath: string;
}

/** The v3 text of an old session file's text, or null when it needs no upgrade (v3+, or not a session). */
export function upgradedSessionText(text: string): { fromVersion: number; text: string } | null {
  const { lines, rest } = splitCompleteLines(text);
  const all = [...lines];
  if (rest.trim() !== "" && isJsonObject(rest)) all.push(rest);
  const { state, records } = decodeLines(initialDecoderState(), all);
  if (state.phase !== "session" || state.migration === "none" || state.version === null) return null;
  const out: string[] = [];
  let header: string | null = null;
  for (const record of records) {
    if (record.kind === "header") header = JSON.stringify(record.header);
    else if (record.kind === "entry") out.push(JSON.stringify(record.entry));
    else {
      // Not JSON, or a duplicate header: both readers skip it; keep it. A non-object JSON value: drop it.
      if (record.reason !== NOT_OBJECT) out.push(all[record.line - 1] ?? "");
    }
  }
  if (header === null) return null;
  return { fromVersion: state.version, text: `${[header, ...out].join("\n")}\n` };
}

function isJsonObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Upgrades `file` to version 3 in place (see the module comment); null when it is already current (or not a
 * session file: pi's own open then decides). The copy goes to `trashDir` (`<agentDir>/leyline-trash`).
 */
export function upgradeSessionFile(file: string, options: { trashDir: string; now?: Date }): SessionUpgrade | null {
  const bytes = fs.readFileSync(file);
  const upgraded = upgradedSessionText(bytes.toString("utf8"));
  if (upgraded === null) return null;
  const before = fs.statSync(file);
  const backupPath = keepTrashCopy(options.trashDir, file, `v${upgraded.fromVersion}`, bytes, (options.now ?? new Date()).getTime());
  replaceFileAtomically(file, upgraded.text, {
    beforeRename: () => {
      const now = fs.statSync(file);
      if (now.size !== bytes.length || now.mtimeMs !== before.mtimeMs) {
        throw new Error(`${file} changed while Leyline upgraded it; nothing was replaced (the copy is at ${backupPath})`);
      }
    },
  });
  return { fromVersion: upgraded.fromVersion, backupPath };
}
