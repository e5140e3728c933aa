/**
 * A small OpenAI-compatible chat server of ours on 127.0.0.1 (the one stand-in the quality bar allows besides
 * pi-ai's faux provider): `POST <base>/chat/completions` answers a streamed (SSE) or plain completion with a
 * scripted text, `GET <base>/models` lists its models. It records every request (path, headers, body), so
 * tests can see what pi sent (the API key as a Bearer header, the output limit).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown> | null;
}

export interface OpenAiStub {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly requests: StubRequest[];
  /** The text the next completions answer with (default "Hello from the stub."). */
  reply: string;
  /** Answer completions with this status and an error body instead (null: answer normally). */
  failWith: { status: number; message: string } | null;
  /** Require this Bearer key (null: any or none). */
  requireKey: string | null;
  close(): Promise<void>;
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null): string {
  const body = {
    id,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

export async function startOpenAiStub(options: { models?: string[] } = {}): Promise<OpenAiStub> {
  const models = options.models ?? ["stub-model"];
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (data: Buffer) => chunks.push(data));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> | null;
      try {
        body = text === "" ? null : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        body = null;
      }
      const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
      requests.push({ method: req.method ?? "GET", path, headers: req.headers, body });
      if (stub.requireKey !== null && req.headers.authorization !== `Bearer ${stub.requireKey}`) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "Invalid API key", type: "invalid_request_error" } }));
        return;
      }
      if (req.method === "GET" && path.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: models.map((id) => ({ id, object: "model", owned_by: "stub" })) }));
        return;
      }
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "Not found" } }));
        return;
      }
      if (stub.failWith !== null) {
        res.writeHead(stub.failWith.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: stub.failWith.message } }));
        return;
      }
      const model = typeof body?.["model"] === "string" ? body["model"] : (models[0] ?? "stub-model");
      const id = `chatcmpl-${requests.length}`;
      const reply = stub.reply;
      const usage = { prompt_tokens: 12, completion_tokens: reply.split(/\s+/).length, total_tokens: 12 + reply.split(/\s+/).length };
      if (body?.["stream"] === true) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
        res.write(chunk(id, model, { role: "assistant", content: "" }, null));
        for (const word of reply.match(/\S+\s*/g) ?? []) res.write(chunk(id, model, { content: word }, null));
        res.write(chunk(id, model, {}, "stop"));
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices: [], usage })}\n\n`,
        );
        res.end("data: [DONE]\n\n");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created: 1_700_000_000,
          model,
          choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
          usage,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const stub: OpenAiStub = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: "Hello from the stub.",
    failWith: null,
    requireKey: null,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}
