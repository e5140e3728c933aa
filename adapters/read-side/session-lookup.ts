/**
 * The read side's answers about one session, for the routes and the session resolution: the persisted file of
 * a session id (from the index), and the detail of a session file (from the detail worker), null when the file
 * is missing or is not a session.
 */
import fs from "node:fs";
import type { SessionDetail } from "../../domain/session-detail.ts";
import type { ReadSide } from "./read-side.ts";
import type { DetailBody, SessionDetailFeeds } from "./session-detail-feeds.ts";

/** The persisted file of a session id (from the index), or null. */
export async function persistedFileOf(readSide: ReadSide, id: string): Promise<string | null> {
  const { index } = await readSide.ready();
  return index.list().find((summary) => summary.id === id)?.path ?? null;
}

/** The detail of a session file as JSON, or null when the file is missing or is not a session. */
export async function detailBodyOf(details: SessionDetailFeeds, file: string): Promise<DetailBody | null> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    return null;
  }
  if (!stat.isFile()) return null;
  return details.detailJson(file);
}

/** The detail of a session file, or null when the file is missing or is not a session. */
export async function loadSessionDetail(details: SessionDetailFeeds, file: string): Promise<SessionDetail | null> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    return null;
  }
  return stat.isFile() ? details.detail(file) : null;
}
