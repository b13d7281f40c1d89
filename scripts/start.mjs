// `npm start`: builds once when there is no production build yet, then runs the compiled custom
// server (dist/server/server.js, from `npm run build`) in production mode, in this process: no
// TypeScript loader and no second Node process at run time.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit", shell: process.platform === "win32" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(".next/BUILD_ID")) {
  console.log("No production build found: running `npm run build` first (about a minute)...");
  run("npm", ["run", "build"]);
} else if (!existsSync("dist/server/server.js")) {
  // A Next build from before the server was compiled: the server alone takes a second.
  run(process.execPath, ["scripts/build.mjs", "server"]);
}

// Before the import: Next and env.ts read it as their modules load.
process.env.NODE_ENV = "production";
await import(new URL("../dist/server/server.js", import.meta.url).href);
