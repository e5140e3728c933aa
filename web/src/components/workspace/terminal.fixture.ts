/**
 * Test double for the browser's WebSocket in terminal component tests (the true boundary: the server's PTY is
 * not part of a happy-dom test): every `new WebSocket(url)` is recorded, and the test plays the server.
 */
import { FakeSocket } from "../../api/events-socket.fixture.ts";

export class FakeWebSocket extends FakeSocket {
  static readonly opened: FakeWebSocket[] = [];
  constructor(url: string) {
    super(url);
    FakeWebSocket.opened.push(this);
  }
  /** The input texts the client sent, decoded. */
  inputs(): string[] {
    return this.messages().flatMap((m) => (m.type === "input" && typeof m.data === "string" ? [m.data] : []));
  }
  messages(): { type: string; data?: unknown; cols?: number; rows?: number }[] {
    return this.sent.map((text) => JSON.parse(text) as { type: string });
  }
  ready(extra: object = {}): void {
    this.receive({ type: "ready", cwd: "/work/project", shell: "/bin/bash", pty: true, ...extra });
  }
}

/** The sockets opened so far, and forget them. */
export function resetSockets(): void {
  FakeWebSocket.opened.length = 0;
}
