import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, order, width } from "../dashboard-support";
import { safeFrameUrl } from "../../../shared/dashboard";

export const frameSrc = z
  .string()
  .max(2000)
  .refine(safeFrameUrl, { message: "an http or https address (absolute, or relative to the dashboard)" });

const shape = {
  group: groupRef,
  order,
  // FlowFuse's defaults: half a page wide, eight rows high ("auto" leaves a frame one row high).
  width: width(6),
  height: height(8),
  src: frameSrc.default("").meta({ title: "URL", description: "The page shown in the frame: an http or https address; msg.src replaces it" }),
  label: z.string().max(200).default("").meta({ title: "Title", description: "Names the frame for screen readers (not shown); empty: the address's host" }),
  className,
};

export const uiIframeConfig = z.object(shape);

export const uiIframeNode = defineNode({
  type: "ui-iframe",
  version: 1,
  category: "dashboard",
  name: "iframe",
  description: "Another web page inside a dashboard group: a Grafana panel, a camera, a manual.",
  help: `Shows another web page in a frame on a dashboard page, as FlowFuse's Dashboard 2.0 add-on \`ui-iframe\` (\`@flowfuse/node-red-dashboard-2-ui-iframe\`).

### Inputs

- \`src\` (string): the address to show instead of the node's **URL**. It stays until a message without \`src\` comes, which shows the node's **URL** again, as in Dashboard 2.0. An address that is not http or https is refused with a warning and the frame keeps what it shows.
- \`enabled\`, \`visible\`, \`class\`, \`ui_update\`: as for every widget.

### Outputs

None.

### Details

The last message is kept: a viewer who opens the page later sees the same page in the frame.

Differences from Dashboard 2.0, on purpose (security):
- Only **http** and **https** addresses are shown (not \`javascript:\`, \`data:\` or \`file:\`).
- An address on the dashboard's own site (a relative one such as \`/grafana\` resolves there) is not shown: a page of this site in a frame would run with the viewer's session. The frame says why instead.
- The framed page runs in a sandbox: its scripts, forms, pop-ups and downloads work, but it cannot navigate the dashboard away.

Whether a page can be framed at all is the page's own choice: many sites forbid it (\`X-Frame-Options\`, \`frame-ancestors\`) and then the frame stays empty; Grafana needs \`allow_embedding\`. A dashboard served over https cannot frame an http page (the browser blocks mixed content).`,
  inputs: 1,
  outputs: 0,
  configSchema: uiIframeConfig,
  nodeRed: dashboardNodeRed("ui-iframe", shape),
});
