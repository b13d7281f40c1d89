import net from "node:net";
import { once } from "node:events";

/**
 * Redis's MONITOR on a socket of its own, read line by line: `onCommand` gets each command's
 * arguments and its source (`lua` for a script's calls, else the client's address).
 *
 * Not ioredis's `monitor()`: it marks its connection as monitoring a microtask after MONITOR's +OK,
 * so a command of any other client that arrives in the same read (other suites share the server)
 * reaches its reply queue and fails with "Command queue state error".
 */
export async function monitorRedis(url: string, onCommand: (args: string[], source: string) => void): Promise<{ close(): void }> {
  const target = new URL(url);
  const socket = net.connect(Number(target.port || 6379), target.hostname);
  await once(socket, "connect");
  const password = decodeURIComponent(target.password);
  if (password) socket.write(`AUTH ${target.username ? `${decodeURIComponent(target.username)} ` : ""}${password}\r\n`);
  socket.write("MONITOR\r\n");
  let buffer = "";
  let confirmed = false;
  const ready = new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (line.startsWith("-")) reject(new Error(`redis: ${line.slice(1)}`));
        else if (line === "+OK") {
          // AUTH's +OK first, when there was one, then MONITOR's.
          if (!password || confirmed) resolve();
          confirmed = true;
        } else {
          // +1796011165.716375 [0 127.0.0.1:41440] "get" "key"   (or [0 lua] for a script's calls)
          const m = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
          if (m) onCommand([...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!), m[1]!);
        }
      }
    });
  });
  await ready;
  return { close: () => socket.destroy() };
}
