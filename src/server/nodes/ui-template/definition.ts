import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef } from "../../../shared/config-nodes";
import { className, dashboardNodeRed, fromDashboardProps, groupRef, height, order, passthru, width } from "../dashboard-support";

const shape = {
  group: groupRef,
  page: configNodeRef("ui-page", { title: "Page", description: "With scope widget:page or page:style: the page" }),
  ui: configNodeRef("ui-base", { title: "Dashboard", description: "With scope widget:ui or site:style: the dashboard" }),
  order,
  width: width(0),
  height: height(0),
  format: z.string().max(262_144).default("<template>\n  <div>{{ msg.payload }}</div>\n</template>").meta({ title: "Template" }),
  storeOutMessages: z.boolean().default(true).meta({ title: "Keep the last message sent" }),
  passthru: passthru(true),
  resendOnRefresh: z.boolean().default(true).meta({ title: "Resend on refresh" }),
  templateScope: z.enum(["local", "widget:page", "widget:ui", "page:style", "site:style"]).default("local").meta({ title: "Scope" }),
  className,
};

export const uiTemplateConfig = z.object(shape);

export const uiTemplateNode = defineNode({
  type: "ui-template",
  version: 1,
  category: "dashboard",
  name: "Template",
  description: "Your own Vue component or HTML, CSS and script as a widget on a dashboard page, in a sandboxed frame.",
  help: `Your own widget on a dashboard page, as Dashboard 2.0's \`ui-template\`: a Vue 3 component (with Vuetify 3's components and Material Design Icons) or plain HTML, run in a sandboxed frame without the app's origin: it can never read the app's cookies, tokens or pages.

### Inputs

- \`payload\` and any property: the template's \`msg\` (and \`value\`, its payload); \`this.$socket.on('msg-input:' + this.id, fn)\` fires for each message received.
- \`ui_update.format\` (string): a new template, built at once.
- \`ui_update\` (object): other properties; \`enabled\`, \`visible\` and \`class\` too.

### Outputs

- What the template sends with \`send(msg)\` (a value that is not an object becomes \`msg.payload\`), or \`submit(event)\` of a form (\`topic\` the event's type, \`payload\` the form's fields), with \`_client\` (who sent it).
- With **Pass messages through**, the incoming messages too.

### Details

- **Template**, as Dashboard 2.0 reads it:
  - \`<template>\`: Vue's template syntax (\`{{ msg.payload }}\`, \`:class\`, \`@click\`, \`v-if\`, \`v-for\`, \`<v-btn>\`, \`<v-icon>\`, …). Without one, the whole text is the template.
  - \`<script>\`: \`export default { data, computed, methods, watch, mounted, unmounted }\` (Vue's Options API; other options are ignored, as in Dashboard 2.0), or plain JavaScript run when the widget mounts, with \`this\` the component. \`<script src="https://…">\` loads a library.
  - \`<style>\`: CSS for the widget.
- **Scope**: \`local\` (a widget in a group), \`widget:page\` / \`widget:ui\` (on every page, or every page of the dashboard, outside groups), \`page:style\` / \`site:style\` (CSS only, for the page or the whole dashboard).
- CSS of \`page:style\` and \`site:style\` finds Dashboard 2.0's hooks: each widget's element has the classes \`nrdb-ui-widget\`, \`nrdb-<type>\` (\`nrdb-ui-button\`) and its node's **Class**, and the id \`nrdb-ui-widget-<node id>\`; a group is a \`div.nrdb-ui-group.v-card\` with its class and the id \`nrdb-ui-group-<id>\`; the page is \`.nrdb-ui-page\` with its class; the app bar \`.v-app-bar\`, the page list \`.v-navigation-drawer\`. What is inside a widget is ours, not Vuetify's: a rule that names Vuetify's inner elements finds nothing.
- The last message is kept: a viewer opening the page later gets it first (with **Resend on refresh**), and a \`msg\` watcher runs for it.
- Templates written for the earlier frame keep working: \`send(msg)\`, \`onMessage(fn)\` and Dashboard 1's \`scope.send\` / \`scope.$watch('msg', fn)\` are globals of the frame.

### Differences from Node-RED

- Dashboard 2.0 runs the template inside the dashboard's page; here it runs in a frame of its own (SPEC §21). So a template cannot change the rest of the page: CSS for other widgets (use the \`page:style\` and \`site:style\` scopes, whose CSS also reaches every template's content, as in Dashboard 2.0's one document) and Dashboard 2.0's internals (\`$store\`, \`$dataTracker\`) are not available. One exception: a template whose content goes to Dashboard 2.0's app bar (\`<Teleport to="#app-bar-actions">\` or \`#app-bar-title\`, as its help shows for a logo or the signed-in user) has its frame placed in the app bar, 320 px wide at most and one row high, where the teleported content shows (a menu it opens stays within that frame).
- \`setup.socketio.auth.user\` is the signed-in viewer (\`{ userId, username, email, name, image }\`, as FlowFuse's user add-on gives it; \`image\` is their initials without an avatar), and \`setup.socketio.auth\` is undefined for a share link's visitor. Their inputs' messages carry the same as \`msg._client.user\` (see ui-base).
- \`send()\` carries JSON over the app's socket: a File, Blob or ArrayBuffer arrives as an empty object (Dashboard 2.0 sends it as a Buffer). Use a **File input** widget for files.
- The frame may load scripts, styles, images and fonts and call APIs over https only, and cannot navigate the dashboard. It may frame another page over http or https (\`<iframe src="…">\`, as Dashboard 1 flows frame a worldmap or a camera); that page runs in the template's sandbox, without its own site's cookies or storage (FlowFuse's **iframe** widget gives it those); \`alert()\`, forms, downloads and links that open a new window work.
- A Dashboard 1 \`ui_template\` imports with its Angular directives rewritten as Vue's: \`ng-bind-html\` → \`v-html\`, \`ng-bind\` → \`v-text\`, \`ng-if\` / \`ng-show\` / \`ng-hide\` → \`v-if\` / \`v-show\`, \`ng-class\` / \`ng-style\` / \`ng-disabled\` → \`:class\` / \`:style\` / \`:disabled\`, \`ng-src\` / \`ng-href\` → \`:src\` / \`:href\`, \`ng-click\` (and the other events) → \`@click\`, \`ng-repeat\` → \`v-for\` (with \`$index\`; \`track by\` as \`:key\`), Angular Material's \`<md-button>\` → Vuetify's \`<v-btn>\`. Its \`{{msg.payload}}\` interpolations work, as Vue's. What has no counterpart (\`ng-model\`, \`ng-init\`, Angular filters such as \`| number:2\`, a \`<script>\` using Angular's \`scope\`) stays as written, is not run, and the import names it.`,
  inputs: 1,
  outputs: 1,
  configSchema: uiTemplateConfig,
  form: { format: { widget: "multiline" } },
  nodeRed: {
    ...dashboardNodeRed("ui-template", shape),
    // Dashboard 2.0 before 1.0 named the dashboard `dashboard` (site-scoped templates); read as `ui`
    // when there is none. `fwdInMessages` is Dashboard 1's, in early 2.0 templates, read by 2.0 nowhere.
    fromNodeRed: (p, refused) => fromDashboardProps(shape, p.ui === undefined && typeof p.dashboard === "string" ? { ...p, ui: p.dashboard } : p, refused),
    absorbed: ["dashboard", "fwdInMessages"],
  },
});
