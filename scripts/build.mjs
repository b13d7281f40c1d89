// `node scripts/build.mjs [server] [cli]`: compiles the custom server and the command line with
// esbuild, so neither needs a TypeScript loader at run time (`npm run build` runs both after
// `next build`; `npm start` and bin/flowplane.mjs run it when their output is missing).
//
// server → dist/server/server.js and its workers' entries (sandbox-worker.js, lease-worker.js,
//   sqlite-worker.js), our code bundled, packages left to node_modules (they are the app's dependencies,
//   and Next loads the same ones). The workers sit beside the server: pool-worker.ts and
//   sqlite-host.ts find theirs relative to their own module, which is the bundle. Prisma's query compiler goes beside them as
//   dist/server/prisma-query-compiler.wasm (prismaWasmFromFile, below).
// pgdata → dist/pgdata-template: the embedded database's data directory, initialized and migrated
//   (src/server/embedded-template.ts, compiled and run once): a new DATA_DIR starts as a copy of it
//   instead of running initdb (db.ts, embeddedTemplateDir).
// cli → packages/cli/dist/flowplane.mjs: src/cli/bin.ts with everything it uses (ws, openapi-fetch)
//   in one file that needs nothing but Node, so packages/cli installs on its own.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const targets = process.argv.slice(2).length ? process.argv.slice(2) : ["server", "cli", "pgdata"];

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20.9",
  format: "esm",
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
  legalComments: "none",
};

// Bundled CommonJS code (ws) requires Node's built-ins; an ES module has no `require` of its own.
const requireShim = 'import { createRequire as __fpCreateRequire } from "node:module"; const require = __fpCreateRequire(import.meta.url);';

// Packages stay in node_modules, except JSON files of packages (ajv's draft-06 schema): Node loads
// JSON as an ES module only with an import attribute, which the sources do not carry.
const packagesExceptJson = {
  name: "packages-except-json",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@/") || args.path.endsWith(".json")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

// Prisma's query compiler (WebAssembly) comes as a module exporting its bytes as a 4.4 MB base64
// string. Once imported, the module keeps that string (its export) and V8 its source text (as large)
// for the life of the process: 8.7 MB of an idle server's heap for bytes used once at start
// (docs/BENCHMARKS.md, "Issue 39, fifth round"). The bundles read the bytes from a file beside them
// instead, written here at build time.
const PRISMA_WASM_MODULE = "@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs";
const PRISMA_WASM_FILE = "prisma-query-compiler.wasm";
const PRISMA_WASM_IMPORT = `    const { wasm } = await import("${PRISMA_WASM_MODULE}")
    return await decodeBase64AsWasm(wasm)`;
const prismaWasmFromFile = {
  name: "prisma-wasm-from-file",
  setup(pluginBuild) {
    pluginBuild.onStart(async () => {
      const { wasm } = await import(PRISMA_WASM_MODULE);
      const outdir = pluginBuild.initialOptions.outdir;
      mkdirSync(outdir, { recursive: true });
      writeFileSync(path.join(outdir, PRISMA_WASM_FILE), Buffer.from(wasm, "base64"));
    });
    pluginBuild.onLoad({ filter: /[\\/]src[\\/]generated[\\/]prisma[\\/]internal[\\/]class\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      // A Prisma upgrade that generates this differently fails the build here, not the server at start.
      if (!source.includes(PRISMA_WASM_IMPORT)) throw new Error(`${args.path}: Prisma's query compiler import changed; update scripts/build.mjs (prismaWasmFromFile)`);
      const contents = source.replace(PRISMA_WASM_IMPORT, `    const { readFileSync } = await import("node:fs")
    return new WebAssembly.Module(readFileSync(new URL("./${PRISMA_WASM_FILE}", import.meta.url)))`);
      return { contents, loader: "ts" };
    });
  },
};

async function buildServer() {
  await build({
    ...common,
    entryPoints: {
      server: "src/server.ts",
      "sandbox-worker": "src/server/runtime/sandbox/sandbox-worker.ts",
      "lease-worker": "src/server/flow-runtime/lease-worker.ts",
      "sqlite-worker": "src/server/runtime/sqlite/sqlite-worker.ts",
    },
    outdir: "dist/server",
    plugins: [packagesExceptJson, prismaWasmFromFile],
    sourcemap: "linked",
    // No keepNames: it wraps every named function on each creation (the cost tsx's loader had on hot
    // paths, src/server/http/README.md "Requests"); our errors set their `name` themselves.
  });
}

async function buildPgdata() {
  await build({
    ...common,
    entryPoints: { "make-pgdata-template": "src/server/embedded-template.ts" },
    outdir: "dist/server",
    plugins: [packagesExceptJson, prismaWasmFromFile],
  });
  // Run from dist/server, as the server is: db.ts finds the template beside it (dist/pgdata-template).
  execFileSync(process.execPath, [path.join(root, "dist/server/make-pgdata-template.js"), path.join(root, "dist/pgdata-template")], { cwd: root, stdio: "inherit" });
}

async function buildCli() {
  await build({
    ...common,
    entryPoints: { flowplane: "src/cli/bin.ts" },
    outdir: "packages/cli/dist",
    outExtension: { ".js": ".mjs" },
    // ws's optional native speed-ups: ws runs without them.
    external: ["bufferutil", "utf-8-validate"],
    minify: true,
    banner: { js: `#!/usr/bin/env node\n${requireShim}` },
  });
}

const builders = { server: buildServer, cli: buildCli, pgdata: buildPgdata };
for (const target of targets) {
  if (!builders[target]) {
    console.error(`scripts/build.mjs: unknown target "${target}" (server, cli, pgdata)`);
    process.exit(2);
  }
  const started = performance.now();
  await builders[target]();
  console.log(`built ${target} in ${Math.round(performance.now() - started)} ms`);
}
