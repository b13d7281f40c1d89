import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, label, order, topic, topicType, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  order,
  width: width(0),
  height: height(0),
  label: label("File Upload"),
  icon: z.string().max(100).default("paperclip").meta({ title: "Icon", description: "A Material Design icon name, shown before the field" }),
  accept: z.string().max(1000).default("").meta({ title: "Accept", description: "The file types offered (the HTML accept attribute: image/*, .csv, application/pdf)" }),
  allowMultiple: z.boolean().default(false).meta({ title: "Multiple", description: "Several files at once; each is sent as a message of its own" }),
  className,
  topic,
  topicType,
};

export const uiFileInputConfig = z.object(shape);

export const uiFileInputNode = defineNode({
  type: "ui-file-input",
  version: 1,
  category: "dashboard",
  name: "File upload",
  description: "Lets a dashboard's viewer upload a file: it is sent into the flow as a Buffer.",
  help: `A file field and an **Upload** button on a dashboard page, as Dashboard 2.0's \`ui-file-input\`: each file chosen and uploaded is sent as a message.

### Inputs

- \`enabled\`, \`visible\`, \`class\` and \`ui_update\` as every widget's.

### Outputs

- \`payload\` (Buffer): the file's bytes.
- \`file\` (object): \`name\`, \`type\` (its media type, as the browser says) and \`size\` (bytes).
- \`topic\`: the configured topic.
- \`_client\` (object): who uploaded.

### Details

- A file may be at most \`DASHBOARD_MAX_FILE_BYTES\` (default 1,000,000 bytes, Dashboard 2.0's default): the page refuses a larger one before sending it, and so does the server. Set the variable on the server to allow more (up to 64 MiB).
- **Accept** narrows the browser's file chooser (\`image/*\`, \`.csv\`); it is a hint to the browser, not a check: a flow that needs a type should look at \`msg.file.type\` or the bytes.
- The file goes in chunks over the page's connection, with its progress shown; with **Multiple**, the files go one after the other, each as its own message.
- View-only share links cannot upload. Nothing of the file is kept by the widget.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiFileInputConfig,
  nodeRed: dashboardNodeRed("ui-file-input", shape),
});
