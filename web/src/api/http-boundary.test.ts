/**
 * The client calls the API only through its stores and the api/ modules: no other file imports the request
 * functions of api/http.ts (`http`, `request`) or calls `fetch` itself. (Error helpers such as ApiError and
 * errorMessage may be used anywhere.)
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "..");
const ALLOWED = ["api", "stores"];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|vue)$/.test(entry.name) && !/\.(test|fixture)\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe("the client's HTTP boundary", () => {
  it("keeps requests in the stores and the api/ modules", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const relative = path.relative(SRC, file);
      if (ALLOWED.some((dir) => relative.startsWith(`${dir}${path.sep}`))) continue;
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*["'][./]*(?:api\/)?http\.ts["']/g)) {
        const names = (match[1] ?? "").split(",").map((name) => name.trim().split(/\s+as\s+/)[0]);
        if (names.includes("http") || names.includes("request")) offenders.push(`${relative}: imports ${names.join(", ")}`);
      }
      if (/\bfetch\(/.test(text)) offenders.push(`${relative}: calls fetch`);
    }
    expect(offenders).toEqual([]);
    expect(sourceFiles(SRC).length).toBeGreaterThan(50);
  });
});
