/**
 * GET /api/openapi.json covers the whole API: the routes the app registers and the routes the contract
 * declares are the same set, and every operation in the document carries its request and response schemas.
 */
import { afterAll, describe, expect, it } from "vitest";
import { contractRoutes } from "../domain/contract/http-routes.ts";
import { closeTestApps, testApp } from "./app.fixture.ts";

interface Operation {
  parameters?: { in: string; name: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }>; description?: string }>;
}

const openApiPath = (url: string): string => url.replace(/:([A-Za-z]+)/g, "{$1}");

afterAll(closeTestApps);

describe("GET /api/openapi.json", () => {
  it("documents every registered route with its request and response schemas", async () => {
    const { app } = await testApp();
    const res = await app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, Operation>> };
    expect(doc.openapi).toBe("3.1.0");

    const documented = Object.entries(doc.paths).flatMap(([url, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${url}`),
    );
    const declared = contractRoutes().map((route) => `${route.method} ${openApiPath(route.url)}`);
    // HEAD twins of GET routes are Fastify's own; the document lists GET.
    expect(documented.filter((op) => !op.startsWith("HEAD ")).sort()).toEqual([...new Set(declared)].sort());

    for (const route of contractRoutes()) {
      expect(app.hasRoute({ method: route.method, url: route.url }), `${route.method} ${route.url} is registered`).toBe(true);
      const operation = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      const where = `${route.method} ${route.url}`;
      expect(operation, where).toBeDefined();
      if (operation === undefined) continue;
      const parameters = operation.parameters ?? [];
      for (const name of route.url.match(/:([A-Za-z]+)/g) ?? []) {
        expect(
          parameters.some((p) => p.in === "path" && p.name === name.slice(1) && p.schema !== undefined),
          `${where} path ${name}`,
        ).toBe(true);
      }
      const query = route.schema.querystring as { properties?: Record<string, unknown> } | undefined;
      for (const name of Object.keys(query?.properties ?? {})) {
        expect(
          parameters.some((p) => p.in === "query" && p.name === name),
          `${where} query ${name}`,
        ).toBe(true);
      }
      if (route.schema.body !== undefined) {
        expect(operation.requestBody?.content?.["application/json"]?.schema, `${where} body`).toBeDefined();
      }
      const responses = operation.responses ?? {};
      const success = Object.keys(route.schema.response)[0] ?? "200";
      expect(responses[success], `${where} ${success}`).toBeDefined();
      expect(
        Object.keys(responses).some((status) => /^4/i.test(status)),
        `${where} 4xx`,
      ).toBe(true);
      expect(
        Object.keys(responses).some((status) => /^5/i.test(status)),
        `${where} 5xx`,
      ).toBe(true);
    }
  });

  it("keeps the spec's messages in the document (x-error) so clients can read what a field needs", async () => {
    const { app } = await testApp();
    const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const prompt = doc.paths["/api/pi/sessions/{id}/prompt"]?.["post"];
    const schema = prompt?.requestBody?.content?.["application/json"]?.schema as { properties?: Record<string, Record<string, unknown>> };
    expect(schema.properties?.["text"]?.["x-error"]).toBe("text must be a string");
  });
});
