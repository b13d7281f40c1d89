import type { KeyValueStore } from "../store";
import { OrgListeners } from "../store/org-listeners";
import type { Logger } from "../logger";
import type { DeviceInMessage, DeviceOutMessage } from "../runtime/types";
import type { AgentServerFrame } from "../../shared/agent-protocol";

export const devicesInChannel = (organizationId: string) => `org:${organizationId}:devices:in`;
export const devicesOutChannel = (organizationId: string) => `org:${organizationId}:devices:out`;
/** Commands for device agents (SPEC §22): the instance holding the key's socket acts on them. */
export const agentsChannel = (organizationId: string) => `org:${organizationId}:agents`;

/** On the agents channel: send the device what it should run now (`deploy`), or this frame. */
export interface AgentCommand {
  key_id: string;
  deploy?: true;
  frame?: AgentServerFrame;
}

/**
 * Device traffic through the store's pub/sub, so a device connected to one instance reaches the
 * flow running on another: `device.publish` frames go out on the organization's devices:in channel
 * (device-in nodes listen), device-out nodes publish on devices:out (the hub forwards to sockets).
 */
export class DeviceBus {
  private readonly inputs: OrgListeners<DeviceInMessage>;

  constructor(
    private readonly store: KeyValueStore,
    private readonly logger: Logger,
  ) {
    this.inputs = new OrgListeners(store, logger, devicesInChannel, "device");
  }

  sendToDevices(organizationId: string, message: DeviceOutMessage): void {
    this.store.publish(devicesOutChannel(organizationId), JSON.stringify(message)).catch((err: unknown) => this.logger.warn({ err }, "device message could not be published"));
  }

  publishFromDevice(organizationId: string, message: DeviceInMessage): void {
    this.store.publish(devicesInChannel(organizationId), JSON.stringify(message)).catch((err: unknown) => this.logger.warn({ err }, "device publish could not be forwarded"));
  }

  /**
   * Listens to the organization's device messages; returns the function that stops listening. One
   * subscription per organization, shared by its device-in nodes (OrgListeners).
   */
  onDeviceMessage(organizationId: string, handler: (m: DeviceInMessage) => void): () => void {
    return this.inputs.add(organizationId, handler);
  }
}
