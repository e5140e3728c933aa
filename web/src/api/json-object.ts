/**
 * Reading a server message's text (pure): the one JSON.parse the socket machines (events-machine.ts,
 * review-socket-machine.ts, terminal-machine.ts) share before each checks the fields of its own messages. Never
 * throws: text that is not JSON, or JSON that is not an object (null, an array, a number), is no message.
 */
import { isRecord } from "../../../domain/transcript/message-content.ts";

/** The JSON object a text holds, or null. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return isRecord(value) ? value : null;
}
