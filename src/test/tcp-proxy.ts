import net from "node:net";

export interface TcpProxyOptions {
  /**
   * How long each new connection is held before it reaches the server: the client's connect
   * succeeds at once, but nothing it sends is forwarded (and nothing comes back) until then — a
   * slow network or a server slow to accept. What it sent meanwhile is delivered afterwards, in
   * order. Read when a connection arrives, so a test can change it between connections.
   */
  connectDelayMs?: number;
}

/**
 * A TCP forwarder in front of a real server, so a test can cut the connection (an outage) and
 * restore it on the same port without touching the shared server itself, or make new connections
 * slow to establish (connectDelayMs).
 */
export class TcpProxy {
  private server?: net.Server;
  private sockets = new Set<net.Socket>();
  /** Each forwarded connection's two ends, for freeze() and thaw(). */
  private links = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private frozen = false;
  port = 0;
  connectDelayMs: number;

  constructor(
    private readonly target: { host: string; port: number },
    options: TcpProxyOptions = {},
  ) {
    this.connectDelayMs = options.connectDelayMs ?? 0;
  }

  async start(port = this.port): Promise<number> {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      let upstream: net.Socket | undefined;
      let timer: NodeJS.Timeout | undefined;
      let link: { client: net.Socket; upstream: net.Socket } | undefined;
      const cleanup = () => {
        clearTimeout(timer);
        if (link) this.links.delete(link);
        client.destroy();
        upstream?.destroy();
        this.sockets.delete(client);
        if (upstream) this.sockets.delete(upstream);
      };
      client.on("error", cleanup).on("close", cleanup);
      const connect = () => {
        if (client.destroyed) return;
        upstream = net.connect(this.target.port, this.target.host);
        this.sockets.add(upstream);
        upstream.on("error", cleanup).on("close", cleanup);
        link = { client, upstream };
        this.links.add(link);
        // pipe() resumes the client: what it sent while held is forwarded now.
        if (this.frozen) client.pause();
        else client.pipe(upstream).pipe(client);
      };
      const delay = this.connectDelayMs;
      if (delay > 0) {
        client.pause();
        timer = setTimeout(connect, delay);
      } else {
        connect();
      }
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject).listen(port, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /**
   * A server that stops answering with its connections open (a frozen process, a stalled
   * network): nothing is forwarded either way until thaw(), which delivers what waited, in order.
   */
  freeze(): void {
    this.frozen = true;
    for (const { client, upstream } of this.links) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  thaw(): void {
    this.frozen = false;
    for (const { client, upstream } of this.links) client.pipe(upstream).pipe(client);
  }

  /** Drops every open connection and stops accepting new ones. */
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

/** True when something accepts TCP connections at host:port within the timeout. */
export function isListening(port: number, host = "127.0.0.1", timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * A started TcpProxy in front of the server a connection URL names (PostgreSQL, Redis), and the
 * same URL pointed at the proxy, for tests that cut, freeze or slow that connection. `port`: the
 * proxy's own (any free one when absent).
 */
export async function proxiedUrl(url: string, defaultPort: number, options: TcpProxyOptions & { port?: number } = {}): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || defaultPort) }, options);
  await proxy.start(options.port);
  const via = new URL(url);
  via.hostname = "127.0.0.1";
  via.port = String(proxy.port);
  return { proxy, url: via.toString() };
}
