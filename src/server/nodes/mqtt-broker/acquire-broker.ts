import { createHash } from "node:crypto";
import type tls from "node:tls";
import type { NodeContext } from "../../runtime/types";
import type { ConnectionLease } from "../../runtime/connections";
import type { VariablesResolved } from "../../runtime/number-or-variable";
import { BUILT_IN_BROKER, type MqttBrokerConfig } from "./definition";
import { brokerHost, brokerUrl, MqttConnection, type BrokerSettings } from "./connection";

/** What the broker reads of a tls-config (Node-RED's names; PEMs are credentials). */
type TlsConfig = { servername?: string; verifyservercert?: boolean; alpnprotocol?: string };

/**
 * The shared connection of the broker configuration node `brokerId` for a node (SPEC §19): one per
 * (organization, broker node, deployed revision) on this instance, whoever uses it. Undefined when
 * the deployment does not carry it (reported as the node's error by ctx.configNode).
 */
export async function acquireBroker(ctx: NodeContext, brokerId: string): Promise<ConnectionLease<MqttConnection> | undefined> {
  const handle = ctx.configNode<VariablesResolved<MqttBrokerConfig>>(brokerId, "mqtt-broker");
  if (!handle) return undefined;
  const first = handle.config;
  const tlsHandle = first.usetls && first.tls ? ctx.configNode<TlsConfig>(first.tls, "tls-config") : undefined;
  if (first.usetls && first.tls && !tlsHandle) throw new Error(`the TLS configuration ${first.tls} is not available`);
  // The host credentials go to (SPEC §14: a secret with allowed hosts is given only to those): the
  // configured broker's, or the one a connect action points the connection at.
  const settings = (host?: string): BrokerSettings => {
    const c = handle.config;
    const target = host ?? brokerHost(brokerUrl(c));
    const creds = handle.credentialsFor(target);
    let tlsOptions: tls.ConnectionOptions | undefined;
    if (tlsHandle) {
      const t = tlsHandle.config;
      const tc = tlsHandle.credentialsFor(target);
      tlsOptions = {
        ...(tc.cadata ? { ca: tc.cadata } : {}),
        ...(tc.certdata ? { cert: tc.certdata } : {}),
        ...(tc.keydata ? { key: tc.keydata } : {}),
        ...(tc.passphrase ? { passphrase: tc.passphrase } : {}),
        ...(t.servername ? { servername: t.servername } : {}),
        ...(t.alpnprotocol ? { ALPNProtocols: [t.alpnprotocol] } : {}),
        rejectUnauthorized: t.verifyservercert !== false,
      };
    }
    const lwt = (w: "birth" | "close" | "will") => ({ topic: c[`${w}Topic`], payload: c[`${w}Payload`], qos: c[`${w}Qos`], retain: c[`${w}Retain`], props: c[`${w}Msg`] as Record<string, unknown> });
    return {
      builtIn: c.broker === BUILT_IN_BROKER,
      broker: c.broker,
      port: c.port,
      usetls: c.usetls,
      ...(tlsOptions ? { tls: tlsOptions } : {}),
      verifyservercert: c.verifyservercert,
      clientid: c.clientid,
      clientSuffix: ctx.services.instanceId ?? "local",
      autoConnect: c.autoConnect,
      protocolVersion: c.protocolVersion as 3 | 4 | 5,
      keepalive: c.keepalive,
      cleansession: c.cleansession,
      autoUnsubscribe: c.autoUnsubscribe,
      sessionExpiry: c.sessionExpiry,
      userProps: c.userProps,
      ...(c.broker === BUILT_IN_BROKER ? {} : { username: creds.user ?? "", password: creds.password ?? "" }),
      birth: lwt("birth"),
      close: lwt("close"),
      will: lwt("will"),
    };
  };
  // A connection depends on its TLS configuration's revision too; credentials are read at each connect.
  const variant = tlsHandle ? createHash("sha256").update(JSON.stringify([tlsHandle.id, tlsHandle.revision])).digest("base64url") : undefined;
  return handle.connect<MqttConnection>(
    "mqtt",
    {
      open: () =>
        new MqttConnection({
          organizationId: ctx.organizationId,
          outbound: ctx.services.outbound,
          builtInMqtt: ctx.services.builtInMqtt,
          settings,
        }),
      close: (connection) => connection.disconnect(),
    },
    variant ? { variant } : {},
  );
}
