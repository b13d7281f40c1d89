import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Starts a TypeScript file of bench/ in a child process (tsx's loader is inherited through execArgv). */
export function forkBench(file: string, args: string[] = []): ChildProcess {
  const path = fileURLToPath(new URL(`../${file}`, import.meta.url));
  return fork(path, args, { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

/**
 * Runs a bench child on one backend (embedded PGlite when `databaseUrl` is undefined; never Redis)
 * and returns its result message; `env` is added to the child's environment.
 */
export async function runOnBackend<T>(
  file: string,
  args: string[],
  databaseUrl: string | undefined,
  accept: (m: unknown) => m is T,
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<T> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.REDIS_URL;
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
  else delete childEnv.DATABASE_URL;
  const child = fork(fileURLToPath(new URL(`../${file}`, import.meta.url)), args, { execArgv: process.execArgv, env: childEnv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    return await nextMessage(child, accept, timeoutMs);
  } finally {
    await stopChild(child);
  }
}

/** The next IPC message from the child that satisfies `accept`; rejects if the child exits first. */
export function nextMessage<T>(child: ChildProcess, accept: (m: unknown) => m is T, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    const onMessage = (m: unknown) => {
      if (!accept(m)) return;
      cleanup();
      resolve(m);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child exited (code ${code}) before answering`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`child did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("message", onMessage);
    child.on("exit", onExit);
  });
}

/** Waits for the child to exit, killing it (by its own pid) after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
