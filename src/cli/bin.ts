/**
 * The `flowplane` process: runs one command line on the terminal and exits with its status.
 * scripts/build.mjs bundles this file into packages/cli/dist/flowplane.mjs (the installable CLI);
 * bin/flowplane.mjs runs that bundle in the checkout.
 */
import { run } from "./main";

let interrupt: () => void = () => undefined;
const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
process.on("SIGINT", () => interrupt());
const code = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  interrupted,
});
process.exitCode = code;
// Lets stdout drain (a pipe is written asynchronously), then ends even if a socket lingers.
process.stdout.write("", () => process.exit(code));
