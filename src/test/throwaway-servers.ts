/**
 * A Redis and a PostgreSQL of the test's own, in a temporary directory, on ports of their own: a
 * fault test stops and starts them at will, which it must never do to the shared servers (other
 * test runs, other engineers and CI use them). Every process and directory is removed by
 * `destroy()`, whatever state the server is in; a missing binary fails with a message saying what
 * to install, never a silent skip.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { isListening } from "./tcp-proxy";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether a server could listen on 127.0.0.1:port now. Nothing listening is not enough: a connected
 * socket whose local port it is (an outgoing connection's ephemeral port, say a pool's connection
 * to the shared PostgreSQL) makes bind() fail with EADDRINUSE, and with it a server we start there.
 */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The first port in [from, to] that nothing listens on and that can be bound. Keep the ranges
 * below Linux's ephemeral ports (32768-60999): a server stopped and started again on its port
 * must not find it taken by an outgoing connection meanwhile.
 */
export async function freePort(from: number, to: number): Promise<number> {
  for (let port = from; port <= to; port++) {
    if (!(await isListening(port, "127.0.0.1", 200)) && (await canBind(port))) return port;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** An executable by name: on PATH, or in one of `dirs` (the newest first where a version is in the path). */
function findBinary(name: string, dirs: string[], install: string): string {
  for (const dir of [...(process.env.PATH ?? "").split(":"), ...dirs]) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  throw new Error(`${name} was not found on PATH or in ${dirs.join(", ")}: ${install}`);
}

function postgresBinDirs(): string[] {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  return ["/usr/local/bin", ...versions.map((v) => `${root}/${v}/bin`)];
}

export class ThrowawayRedis {
  private child: ChildProcess | null = null;
  private readonly binary = findBinary("redis-server", ["/usr/bin", "/usr/local/bin"], "install Redis (apt-get install redis-server)");

  private constructor(readonly port: number) {}

  static async start(ports: [number, number]): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort(...ports));
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts (again) on the same port, empty: nothing is saved, as after losing a cache server. */
  async start(): Promise<void> {
    if (this.child) throw new Error("redis is already running");
    const child = spawn(this.binary, ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"], { stdio: "ignore" });
    this.child = child;
    child.once("exit", () => {
      if (this.child === child) this.child = null;
    });
    await waitFor(`redis-server on ${this.port}`, () => isListening(this.port), 10_000);
  }

  /** Freezes the server (SIGSTOP): connections stay open, nothing answers. `thaw()` resumes it, data intact. */
  freeze(): void {
    this.child?.kill("SIGSTOP");
  }

  thaw(): void {
    this.child?.kill("SIGCONT");
  }

  /** SIGTERM (Redis shuts down without saving, as configured) and waits until it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(5_000).then(() => child.kill("SIGKILL"))]);
    await exited;
  }

  async destroy(): Promise<void> {
    this.child?.kill("SIGCONT");
    this.child?.kill("SIGKILL");
    await waitFor("redis-server gone", async () => this.child === null, 5_000).catch(() => undefined);
  }
}

export class ThrowawayPostgres {
  private readonly dir: string;
  private readonly dataDir: string;
  private readonly bin: { initdb: string; pgCtl: string };
  /** PostgreSQL refuses to run as root: as root (CI), its commands run as the `postgres` user. */
  private readonly asUser: string[] = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];

  private constructor(readonly port: number) {
    const install = "install PostgreSQL's server binaries (apt-get install postgresql)";
    this.bin = { initdb: findBinary("initdb", postgresBinDirs(), install), pgCtl: findBinary("pg_ctl", postgresBinDirs(), install) };
    this.dir = mkdtempSync(path.join(os.tmpdir(), "fp-pg-"));
    this.dataDir = path.join(this.dir, "data");
    if (this.asUser.length > 0) {
      const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
      const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
      chownSync(this.dir, uid, gid);
    }
  }

  static async start(ports: [number, number]): Promise<ThrowawayPostgres> {
    const pg = new ThrowawayPostgres(await freePort(...ports));
    try {
      pg.run(pg.bin.initdb, ["-D", pg.dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
      await pg.start();
    } catch (err) {
      await pg.destroy();
      throw err;
    }
    return pg;
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    // A test database: durability off, the socket in our own directory, TCP on loopback only.
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    this.run(this.bin.pgCtl, ["-D", this.dataDir, "-o", options, "-l", path.join(this.dir, "server.log"), "-w", "-t", "30", "start"]);
    await waitFor(`postgres on ${this.port}`, () => isListening(this.port), 10_000);
  }

  /**
   * pg_ctl stop in the given mode ("fast": sessions are ended, as an operator's restart does),
   * waiting until it is down; with `wait: false` it returns at once ("smart" then leaves the server
   * shutting down while sessions stay open: new connections are refused with 57P03).
   */
  async stop(mode: "smart" | "fast" | "immediate" = "fast", options: { wait?: boolean } = {}): Promise<void> {
    this.run(this.bin.pgCtl, ["-D", this.dataDir, "-m", mode, ...(options.wait === false ? ["-W"] : ["-w", "-t", "30"]), "stop"]);
  }

  /**
   * Freezes the server (SIGSTOP to the postmaster and every backend), as a hung host or a network
   * partition looks to a client: connections stay open, nothing answers. `thaw()` resumes it.
   */
  freeze(): void {
    for (const pid of this.processes()) process.kill(pid, "SIGSTOP");
  }

  thaw(): void {
    for (const pid of this.processes()) process.kill(pid, "SIGCONT");
  }

  private processes(): number[] {
    const postmaster = Number(readFileSync(path.join(this.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    let children: number[] = [];
    try {
      children = execFileSync("pgrep", ["-P", String(postmaster)]).toString().trim().split("\n").filter(Boolean).map(Number);
    } catch {
      // pgrep exits 1 when there are none.
    }
    return [postmaster, ...children];
  }

  log(): string {
    try {
      return readFileSync(path.join(this.dir, "server.log"), "utf8").split("\n").slice(-20).join("\n");
    } catch {
      return "(no log)";
    }
  }

  async destroy(): Promise<void> {
    if (existsSync(path.join(this.dataDir, "postmaster.pid"))) {
      try {
        this.thaw();
      } catch {
        // Gone already.
      }
      try {
        this.run(this.bin.pgCtl, ["-D", this.dataDir, "-m", "immediate", "-w", "-t", "10", "stop"]);
      } catch {
        // Already down, or never up: the directory goes anyway.
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private run(binary: string, args: string[]): void {
    const [command, ...rest] = [...this.asUser, binary, ...args];
    try {
      execFileSync(command!, rest, { stdio: "pipe", timeout: 60_000 });
    } catch (err) {
      const e = err as { stderr?: Buffer; stdout?: Buffer; message: string };
      throw new Error(`${path.basename(binary)} ${args.at(-1)} failed: ${e.stderr?.toString() || e.stdout?.toString() || e.message}\n${this.log()}`);
    }
  }
}
