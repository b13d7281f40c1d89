#!/usr/bin/env node
// `flowplane` (package.json "bin"): the CLI in src/cli, loaded through tsx as the server is.
import { register } from "tsx/esm/api";

register();
const { run } = await import("../src/cli/main.ts");
let interrupt;
const interrupted = new Promise((resolve) => (interrupt = resolve));
process.on("SIGINT", () => interrupt());
const code = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  interrupted,
});
process.exit(code);
