// `npm start`: builds once when there is no production build yet, then runs the custom server
// (TypeScript, loaded through tsx) in production mode.
import { existsSync } from "node:fs";
import { spawnSync, spawn } from "node:child_process";

if (!existsSync(".next/BUILD_ID")) {
  console.log("No production build found: running `npm run build` first (about a minute)...");
  const build = spawnSync("npm", ["run", "build"], { stdio: "inherit", shell: process.platform === "win32" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production" },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
