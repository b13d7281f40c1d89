import { z } from "zod";

/**
 * Where a debug message comes from when its node runs inside a subflow instance (SPEC §16): the
 * event's node_id is the running node's id (`<instanceId>-<innerId>`, as Node-RED's), and this says
 * which node of the flow's canvas to point at (`instance_id`), the instances down to the node
 * (`instance_path`, outermost first), the definition the node belongs to (`subflow_id`, the
 * innermost one's), the node's id there (`node_id`, Node-RED's `_alias`) and Node-RED's debug
 * `path` (`<flowId>/<instance>/…`). The hosted runtime and the device agent both report it.
 */
export const debugSubflowSourceSchema = z.object({
  instance_id: z.string(),
  instance_path: z.array(z.string()),
  subflow_id: z.string(),
  node_id: z.string(),
  path: z.string(),
});
export type DebugSubflowSource = z.infer<typeof debugSubflowSourceSchema>;
