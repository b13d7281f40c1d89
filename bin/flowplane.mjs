#!/usr/bin/env node
// `flowplane` in the checkout (package.json "bin", `npx flowplane`): runs the compiled CLI,
// packages/cli/dist/flowplane.mjs, the same file `npm pack` in packages/cli ships. It compiles it
// first (esbuild, well under a second) when it is missing or older than a source of src/cli, so a
// fresh clone and an edited checkout work without a build step and without a TypeScript loader.
import { existsSync, readdirSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bundle = path.join(root, "packages/cli/dist/flowplane.mjs");
const sources = path.join(root, "src/cli");

function stale() {
  if (!existsSync(bundle)) return true;
  const built = statSync(bundle).mtimeMs;
  return readdirSync(sources).some((name) => !name.endsWith(".test.ts") && statSync(path.join(sources, name)).mtimeMs > built);
}

if (stale()) {
  const result = spawnSync(process.execPath, [path.join(root, "scripts/build.mjs"), "cli"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
await import(pathToFileURL(bundle).href);
