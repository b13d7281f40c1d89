/**
 * The worker threads' entry modules (the built server's `*-worker.js`, bundled from these files, and
 * the `*-worker-boot.mjs` that load them from source) have no top-level `await`. A worker can be
 * terminated while it still boots (its application closing, a SQLite start that hangs), and V8 ends
 * the whole process when a worker is terminated while it evaluates a module with a top-level await
 * ("Fatal error … Check failed: (location_) != nullptr" in SourceTextModule::ExecuteAsyncModule; CI's
 * PostgreSQL + Redis tier died of it once; denoland/deno#12930 works around the same V8 bug).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ENTRIES: Record<string, string> = {
  "sandbox-worker": "src/server/runtime/sandbox/sandbox-worker.ts",
  "lease-worker": "src/server/flow-runtime/lease-worker.ts",
  "sqlite-worker": "src/server/runtime/sqlite/sqlite-worker.ts",
};

/** Every `await` (and `for await`) of the file that is not inside a function. */
function topLevelAwaits(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".mjs") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node)) return;
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}: ${node.getText().slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("worker entry modules", () => {
  it("the build's worker entries are the files checked here", () => {
    const build = fs.readFileSync("scripts/build.mjs", "utf8");
    for (const [name, file] of Object.entries(ENTRIES)) expect(build).toContain(`"${name}": "${file}"`);
  });

  it("have no top-level await, nor do their boot files", () => {
    const boots = Object.values(ENTRIES).map((file) => path.join(path.dirname(file), `${path.basename(file, ".ts")}-boot.mjs`));
    for (const boot of boots) expect(fs.existsSync(boot), boot).toBe(true);
    expect([...Object.values(ENTRIES), ...boots, "src/server/worker-boot.mjs"].flatMap(topLevelAwaits)).toEqual([]);
  });

  it("finds a top-level await where there is one (the check itself)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fp-tla-"));
    try {
      const file = path.join(dir, "probe.mjs");
      fs.writeFileSync(file, 'const a = await import("x");\nasync function f() { await a; }\nfor await (const b of []) {}\n');
      expect(topLevelAwaits(file).map((s) => s.slice(file.length))).toEqual([':1: await import("x")', ":3: for await (const b of []) {}"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
