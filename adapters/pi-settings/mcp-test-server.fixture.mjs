// A tiny stdio MCP server for adapters/pi-settings/mcp-actions.int.test.ts: newline-delimited JSON-RPC on
// stdin/stdout, answering initialize, ping and tools/list. Plain JavaScript so the test runs it with the Node
// binary that runs the tests, without a loader.
//
// Environment:
//   FIXTURE_PID_FILE  a file it writes its pid to at start (so a test can see it gone after close or cancel)
//   FIXTURE_MODE      "hang": never answers initialize; "crash": exits with status 3 at the first request
//   FIXTURE_SECRET    put into a tool description (the check must redact it from tool metadata)
//   FIXTURE_CHILD     "1": starts a grandchild (sleep) in the same process group, its pid in FIXTURE_PID_FILE.child
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const mode = process.env.FIXTURE_MODE ?? "";
const pidFile = process.env.FIXTURE_PID_FILE;
if (pidFile) writeFileSync(pidFile, String(process.pid));
if (process.env.FIXTURE_CHILD === "1" && pidFile) {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(`${pidFile}.child`, String(child.pid));
}

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const tools = [
  { name: "echo", description: "Echoes its text back.", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  {
    name: "whoami",
    description: `Reports the configured identity (${process.env.FIXTURE_SECRET ?? "none"}) and the cwd ${process.cwd()}.`,
    inputSchema: { type: "object" },
  },
];

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  if (mode === "crash") process.exit(3);
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    if (mode === "hang") return;
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "leyline-fixture", version: "1.0.0" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools } });
  } else if (message.method === "ping") {
    send({ jsonrpc: "2.0", id: message.id, result: {} });
  } else {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
lines.on("close", () => process.exit(0));
