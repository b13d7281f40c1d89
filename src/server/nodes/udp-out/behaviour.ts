import dgram from "node:dgram";
import { udpOutNode } from "./definition";
import { defineBehaviour } from "../types";
import { wholeEnvValue } from "../../runtime/env-values";

export const udpOutBehaviour = defineBehaviour(udpOutNode, (ctx, config) => {
  // An address or port written as one `${NAME}` is the variable's value, as Node-RED maps it when the node starts.
  const env = (value: string) => wholeEnvValue(value, (name) => ctx.env.get(name));
  const c = { ...config, addr: env(config.addr), port: env(config.port) };
  let socket: dgram.Socket | undefined;
  const socketFor = () => {
    if (!socket) {
      socket = dgram.createSocket({ type: c.ipv });
      // Errors also reach each send's callback; this keeps one from ending the process.
      socket.on("error", () => undefined);
      if (c.multicast !== "false") {
        socket.bind(() => {
          socket?.setBroadcast(true);
          if (c.multicast === "multi") socket?.setMulticastTTL(128);
        });
      }
    }
    return socket;
  };
  return {
    async input(msg, _send, done) {
      if (!Object.hasOwn(msg, "payload")) {
        done();
        return;
      }
      const address = c.addr || (typeof msg.ip === "string" ? msg.ip : "");
      const port = Number(c.port || msg.port || 0);
      if (address === "") {
        ctx.log.warn("udp: ip address not set");
        done();
        return;
      }
      if (port === 0) {
        ctx.log.warn("udp: port not set");
        done();
        return;
      }
      if (!Number.isInteger(port) || port < 1 || port > 65535) {
        ctx.log.warn("udp: port number not valid");
        done();
        return;
      }
      const outbound = ctx.services.outbound;
      if (c.multicast !== "false" && !outbound?.allowPrivate) {
        done(new Error("udp : broadcast and multicast are not allowed in the shared runtime"));
        return;
      }
      let target: { address: string };
      try {
        // The checked address is the one sent to (a name resolved once, here).
        target = outbound ? await outbound.resolve(address) : { address };
      } catch (err) {
        done(new Error(`udp : ${(err as Error).message}`));
        return;
      }
      const payload = msg.payload;
      const message = c.base64 ? Buffer.from(String(payload), "base64") : Buffer.isBuffer(payload) ? payload : Buffer.from(String(payload));
      socketFor().send(message, 0, message.length, port, target.address, (err) => {
        if (err) done(new Error(`udp : ${err.message}`));
        else done();
      });
    },
    close() {
      socket?.close();
      socket = undefined;
    },
  };
});
