import net from "node:net";

/**
 * A TCP listener on 127.0.0.1 that counts the connections it accepts (and closes them): stands for
 * a server a node must not reach, so a test can assert nothing connected, then that something would.
 */
export async function countingListener(): Promise<{ port: number; accepted(): number; close(): void }> {
  let accepted = 0;
  const listener = net.createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  return { port: (listener.address() as net.AddressInfo).port, accepted: () => accepted, close: () => listener.close() };
}
