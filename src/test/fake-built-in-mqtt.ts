import type { BuiltInMqtt, BuiltInMqttMessage } from "@/server/runtime/types";
import { matchTopic } from "@/server/nodes/mqtt-broker/mqtt-values";

/**
 * The BuiltInMqtt interface (SPEC §20) as a small in-memory broker for unit tests of the nodes
 * that use it: what was published, the subscriptions, and `deliver` for what a device of the
 * organization publishing would cause.
 */
export class FakeBuiltInMqtt implements BuiltInMqtt {
  published: Array<{ organizationId: string; message: BuiltInMqttMessage }> = [];
  subscriptions: Array<{ organizationId: string; filter: string; options: unknown; handler: (m: BuiltInMqttMessage) => void | Promise<void>; active: boolean }> = [];
  /** Set to make the next publishes fail with this error. */
  failWith: Error | undefined;
  async publish(organizationId: string, message: BuiltInMqttMessage) {
    if (this.failWith) throw this.failWith;
    this.published.push({ organizationId, message });
    await this.deliver(organizationId, message);
  }
  /** Each matching subscription's handler, awaited. */
  async deliver(organizationId: string, message: BuiltInMqttMessage) {
    const pending = this.subscriptions.filter((s) => s.active && s.organizationId === organizationId && matchTopic(s.filter, message.topic)).map((s) => s.handler(message));
    await Promise.all(pending);
  }
  async subscribe(organizationId: string, filter: string, options: { qos: 0 | 1 | 2 }, handler: (m: BuiltInMqttMessage) => void | Promise<void>) {
    const sub = { organizationId, filter, options, handler, active: true };
    this.subscriptions.push(sub);
    return async () => {
      sub.active = false;
    };
  }
}
