import net from "node:net";
import { isBlockedAddress } from "../../runtime/outbound";
import type { NrNode } from "./node-red-mapping";

/**
 * What an import says of the addresses its client nodes would reach on a private network (an MQTT
 * broker at `localhost`, an http request to `192.168.1.10`, a tcp client to `mosquitto`): a flow
 * written for a Raspberry Pi next to its broker. With the outbound rules' default (SPEC §20:
 * private, loopback and link-local addresses refused unless OUTBOUND_ALLOW_PRIVATE), this server
 * never reaches them, and after the import the node would only show "disconnected" or fail. The
 * report says so at the moment of the move, with the ways out: a device (SPEC §22), the built-in
 * broker. Only what can be told without a lookup: literal addresses the rules refuse, `localhost`,
 * names with no dot (a local network's or a container's), and the local-network suffixes.
 */

const LOCAL_SUFFIXES = [".local", ".lan", ".home", ".internal", ".intranet", ".home.arpa", ".localdomain"];

/** Why `host` is on a private network, or null when it may be public (or cannot be told). */
export function privateHostReason(host: string): string | null {
  const h = host.trim().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
  if (h === "" || h.includes("${") || h.includes("{{") || h.includes("$(")) return null;
  if (net.isIP(h)) return isBlockedAddress(h) ? "a private or reserved address" : null;
  if (h === "localhost" || h.endsWith(".localhost")) return "this machine's own name";
  if (!h.includes(".")) return "a name only a local network resolves";
  const suffix = LOCAL_SUFFIXES.find((s) => h.endsWith(s));
  return suffix ? `a local network's name (${suffix})` : null;
}

/** The host of a broker, URL or host field as Node-RED writes them (`host`, `host:port`, `scheme://host:port/path`). */
function hostOf(value: unknown, defaultScheme: string): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim();
  // A host that a mustache template takes from each message (`http://{{host}}/x`) is known only
  // when a message comes: the import says nothing of it. A template in the path leaves the host
  // known, and judged (private-targets.test.ts: h4, h5).
  const authority = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split(/[/?#]/, 1)[0]!;
  if (authority.includes("{{") || authority.includes("${") || authority.includes("$(")) return null;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `${defaultScheme}://${text}`).hostname;
  } catch {
    return null;
  }
}

const quoted = (n: NrNode) => (typeof n.name === "string" && n.name.trim() !== "" ? `"${n.name.trim().slice(0, 80)}" ` : "");

/** One warning per client node or configuration node whose fixed address is on a private network. */
export function privateTargetWarnings(items: readonly NrNode[]): string[] {
  const warnings: string[] = [];
  const say = (n: NrNode, field: string, value: string, host: string, consequence: string) => {
    const reason = privateHostReason(host);
    if (!reason) return;
    warnings.push(
      `${n.type} ${quoted(n)}(${String(n.id).slice(0, 80)}): its ${field} ${value.trim().slice(0, 200)} is ${reason}, which this server does not connect to (outbound rules; OUTBOUND_ALLOW_PRIVATE is off), so ${consequence}. Run the flow on a device on that network (Devices, flowplane agent)${n.type === "mqtt-broker" ? ", or use the built-in broker (Server: built-in)" : ""}.`,
    );
  };
  for (const n of items) {
    switch (n.type) {
      case "mqtt-broker": {
        if (typeof n.broker !== "string" || n.broker.trim() === "built-in") break;
        const host = hostOf(n.broker, "mqtt");
        if (host) say(n, "broker", n.broker, host, "its MQTT nodes stay disconnected");
        break;
      }
      case "http request": {
        const host = hostOf(n.url, "http");
        if (host && typeof n.url === "string") say(n, "URL", n.url, host, "its requests fail");
        break;
      }
      case "websocket-client": {
        const host = hostOf(n.path, "ws");
        if (host && typeof n.path === "string") say(n, "URL", n.path, host, "its websocket nodes stay disconnected");
        break;
      }
      case "tcp request":
        if (typeof n.server === "string" && n.server.trim() !== "") say(n, "server", n.server, n.server, "its requests fail");
        break;
      case "tcp out":
        if ((n.beserver === undefined || n.beserver === "client") && typeof n.host === "string" && n.host.trim() !== "") say(n, "host", n.host, n.host, "it stays disconnected");
        break;
      case "tcp in":
        if (n.server !== "server" && n.server !== true && typeof n.host === "string" && n.host.trim() !== "") say(n, "host", n.host, n.host, "it stays disconnected and nothing arrives");
        break;
      case "udp out":
        if (typeof n.addr === "string" && n.addr.trim() !== "") say(n, "address", n.addr, n.addr, "nothing it sends arrives");
        break;
      case "postgreSQLConfig":
        // A host from an environment variable or global context cannot be told here.
        if ((n.hostFieldType === undefined || n.hostFieldType === "str") && typeof n.host === "string" && n.host.trim() !== "") say(n, "host", n.host, n.host.trim(), "its postgresql nodes' queries fail");
        break;
      case "MySQLdatabase":
        if (typeof n.host === "string" && n.host.trim() !== "") say(n, "host", n.host, n.host.trim(), "its mysql nodes stay \"not yet connected\"");
        break;
      case "influxdb": {
        // 1.x names a host; 1.8-flux and 2.0 a URL.
        const v1 = n.influxdbVersion === undefined || n.influxdbVersion === "1.x";
        const value = v1 ? n.hostname : n.url;
        const host = typeof value === "string" ? (v1 ? value.trim() : hostOf(value, "http")) : null;
        if (host && typeof value === "string") say(n, v1 ? "host" : "URL", value, host, "its writes and queries fail");
        break;
      }
    }
  }
  return warnings;
}
