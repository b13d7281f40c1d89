import { z } from "zod";
import { defineNode } from "../types";
import { className, dashboardNodeRed, groupRef, height, order, passthru, topic, topicType, uiRef, width } from "../dashboard-support";

const onOff = (title: string) => z.enum(["on", "off"]).default("off").meta({ title });

const shape = {
  mode: z.enum(["src", "tts"]).default("src").meta({ title: "Mode", description: "src: an audio player in a group; tts: text to speech on every page of the dashboard" }),
  group: groupRef,
  ui: uiRef,
  order,
  width: width(0),
  height: height(0),
  src: z.string().max(4000).default("").meta({ title: "Source", description: "The audio's URL (player mode); a message's string payload replaces it" }),
  autoplay: onOff("Autoplay"),
  loop: onOff("Loop"),
  muted: onOff("Muted"),
  voice: z.string().max(200).default("").meta({ title: "Voice", description: "Text to speech: the browser's voice name (empty: its default)" }),
  passthru: passthru(false),
  className,
  topic,
  topicType,
};

export const uiAudioConfig = z.object(shape);

export const uiAudioNode = defineNode({
  type: "ui-audio",
  version: 1,
  category: "dashboard",
  name: "Audio",
  description: "Plays audio on a dashboard page, or speaks text with the browser's voices.",
  help: `Audio on a dashboard, as Dashboard 2.0's \`ui-audio\`, in one of two modes.

**Audio player** (\`src\`, in a group): an audio player for the **Source** URL. A message whose \`payload\` is a string sets the source (and plays it with **Autoplay** on); the source is kept for viewers who open the page later.

**Text to speech** (\`tts\`, for a whole dashboard): each message's \`payload\` is spoken by the viewers' browsers, on whichever page of the dashboard they are. A string is the text; an object gives \`text\` and may give \`voice\` (a name or an index), \`lang\`, \`rate\` (0.1–10), \`pitch\` (0–2), \`volume\` (0–100), \`queue\` and \`interrupt\` (by default a new text interrupts the one being spoken).

### Inputs

- \`payload\` (string | object): the source (player) or the text (speech).
- \`playback\` (string): \`play\` (or \`resume\`), \`pause\` or \`stop\`, for the player or the speech.
- \`ui_update\` (object): \`src\`, and \`autoplay\`, \`loop\`, \`muted\` as \`"on"\` or \`"off"\` (anything else is a node error) while the page is open; \`enabled\`, \`visible\`, \`class\` too.

### Outputs

- What the viewer's page did, as Dashboard 2.0 sends it: the last message with \`_event\`: \`play\`, \`pause\` or \`ended\` from the player; from speech an object whose \`type\` is \`tts-start\`, \`tts-end\`, \`tts-pause\`, \`tts-resume\`, \`tts-error\` or \`tts-skip\`, with the \`utterance\` spoken (and \`_error\` on an error). \`_client\` says which viewer.
- With **Pass messages through**, each incoming message too.

### Details

A source is an \`https:\` URL, a path on this site, or a \`data:\` URL: the dashboard's pages load media from nowhere else (their security policy), and a browser would refuse plain \`http:\` on an https page anyway. Browsers play sound and speak only after the viewer has used the page once (a click or a key): that is the browser's rule, not the dashboard's. The voices are the viewer's browser's and system's. A view-only share link hears the audio but sends no events.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiAudioConfig,
  nodeRed: dashboardNodeRed("ui-audio", shape),
});
