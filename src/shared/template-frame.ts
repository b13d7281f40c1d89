/**
 * ui-template's frame (SPEC §21): a Dashboard 2.0 template (a Vue single-file component, or plain
 * HTML) runs as a Vue 3 component with Vuetify 3, as in Dashboard 2.0, but in a document of its own
 * at `TEMPLATE_FRAME_PATH`, shown in an `<iframe sandbox>` without `allow-same-origin`: an opaque
 * origin that can never read the app's cookies, storage, tokens or pages. The server sends the
 * document and its scripts (src/server/dashboards/template-frame.ts); the widget
 * (src/features/dashboard/widgets/template.tsx) talks to it over postMessage only.
 *
 * The messages, each `{ tag: FRAME_TAG, kind, … }`:
 * - frame → page: `ready` (send `init`), `send` `{ msg }` (the template's `send(msg)`),
 *   `height` `{ height }` (the content's height, for widgets of automatic height).
 * - page → frame: `init` `{ id, props, format, msg, theme }` (mounts the template), `msg` `{ msg }`
 *   (a message the widget received: `msg` changes and `msg-input:<id>` fires), `format`
 *   `{ format }` (`msg.ui_update.format`: the template is built again).
 *
 * This module is isomorphic and imports nothing: `templateFrameRuntime` and `componentFromScript`
 * run in the frame, where the server sends them as their source text (`Function.prototype.toString`),
 * so each keeps everything it uses inside its own body.
 */

export const TEMPLATE_FRAME_PATH = "/dashboard-frame/template";

/** The messages between the page and a frame: a tag no other window's message carries. */
export const FRAME_TAG = "flowplane-template";

/**
 * Where a template's `<Teleport>` sends its content, when it is Dashboard 2.0's app bar
 * (`#app-bar-title`, `#app-bar-actions`, as its ui-template help shows for a logo or the signed-in
 * user): such a template's frame is placed in the app bar (widgets/template.tsx), where the
 * teleported content shows; null for any other template.
 */
export function appBarTeleport(format: string): "title" | "actions" | null {
  const m = /<teleport\b[^>]*\bto\s*=\s*["']#app-bar-(title|actions)["']/i.exec(format);
  return m ? (m[1]!.toLowerCase() as "title" | "actions") : null;
}

/**
 * The frame's sandbox: scripts, and what Dashboard 2.0 templates use that stays inside the frame or
 * leaves in a window of its own: forms (`submit()`; the frame's policy has `form-action 'none'`, so a
 * form only raises its event), `alert()` / `confirm()`, links with `target="_blank"` and downloads.
 * Never `allow-same-origin` (the app's origin) or `allow-top-navigation`.
 */
export const TEMPLATE_FRAME_SANDBOX = "allow-scripts allow-forms allow-modals allow-popups allow-popups-to-escape-sandbox allow-downloads";

/** The parts of a Vue component that a template's `<script>` defines (Dashboard 2.0's vue.acorn.js). */
export interface TemplateScriptParts {
  /** Plain JavaScript (no `export default`): runs when the component is mounted, `this` the component. */
  js?: string;
  name?: string;
  data?: () => Record<string, unknown>;
  computed?: Record<string, unknown>;
  methods?: Record<string, unknown>;
  watch?: Record<string, unknown>;
  mounted?: () => void;
  unmounted?: () => void;
}

/**
 * A template's inline `<script>` as Dashboard 2.0 reads it: `export default { … }` is a component of
 * the options it supports (`name`, `data`, `computed`, `methods`, `watch`, `mounted`, `unmounted`;
 * others are ignored with a warning, as there); anything else is plain JavaScript run on mount.
 * Throws on a syntax error, as Dashboard 2.0's parser does.
 */
export function componentFromScript(code: string): TemplateScriptParts {
  const SUPPORTED = ["name", "data", "computed", "methods", "watch", "mounted", "unmounted"];
  // The statement `export default` at the start of a line (or after `;`), outside comments' first column.
  const match = /(^|[;\n])[ \t]*export[ \t\n]+default[ \t\n]/.exec(code);
  if (!match) {
    // Compiled now so a syntax error shows when the template loads, as Dashboard 2.0's parser throws then.
    new Function(code);
    return code.trim() === "" ? {} : { js: code };
  }
  const start = match.index + match[1]!.length;
  const body = `${code.slice(0, start)}return ${code.slice(start).replace(/^[ \t]*export[ \t\n]+default[ \t\n]/, "")}`;
  const options = new Function(body)() as Record<string, unknown> | null;
  if (!options || typeof options !== "object" || Array.isArray(options)) throw new Error("Vue SFC must default export an object expression");
  const parts: Record<string, unknown> = {};
  for (const key of Object.keys(options)) {
    if (key === "props") console.warn('"props" not supported in a ui-template Vue Component');
    else if (!SUPPORTED.includes(key)) console.warn(`"${key}" not supported in a ui-template Vue Component`);
    else parts[key] = options[key];
  }
  return parts as TemplateScriptParts;
}

/** What a template needs beyond Vue: Vuetify (its components or directives) and Material Design Icons. */
export interface TemplateNeeds {
  vuetify: boolean;
  icons: boolean;
}

/**
 * Whether a template uses Vuetify (a `<v-…>` component, or one of its directives: `v-ripple`,
 * `v-tooltip` …) or Material Design Icons (an `mdi-…` name; Vuetify's own icons are MDI's too). The
 * frame loads Vuetify's script and MDI's stylesheet only then; Vuetify's stylesheet (its reset and
 * utility classes: `pa-2`, `text-h6`, `d-flex`) always.
 */
export function templateNeeds(format: string): TemplateNeeds {
  const vuetify = /<v-[a-z]/i.test(format) || /\sv-(?:ripple|click-outside|intersect|mutate|resize|scroll|touch|tooltip)\b/.test(format);
  return { vuetify, icons: vuetify || /\bmdi-[a-z0-9]/.test(format) };
}

interface FrameTheme {
  dark: boolean;
  colors: Record<string, string>;
  font: string;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- Vue and Vuetify are the frame's globals (their UMD builds), typed by nothing here */

/**
 * Runs in the frame, after Vue's (and Vuetify's) browser builds: builds the template as Dashboard 2.0's
 * UITemplate.vue does, with `msg`, `value`, `id`, `props`, `send(msg)`, `submit(event)` and a
 * `$socket` whose `msg-input:<id>` fires on each message the widget receives.
 */
export function templateFrameRuntime(tag: string, parseScript: (code: string) => TemplateScriptParts, needsOf: (format: string) => TemplateNeeds): void {
  const w = window as any;
  const Vue = w.Vue;
  // Vuetify's script and MDI's stylesheet, beside this script and of its version, loaded when a template needs them.
  const version = (document.currentScript as HTMLScriptElement | null)?.src.split("?")[1] ?? "";
  const loading = new Map<string, Promise<void>>();
  const load = (file: string): Promise<void> => {
    let p = loading.get(file);
    if (!p) {
      p = new Promise<void>((resolve) => {
        const el = file.endsWith(".css") ? Object.assign(document.createElement("link"), { rel: "stylesheet" }) : document.createElement("script");
        const url = `${file}${version ? `?${version}` : ""}`;
        if (el instanceof HTMLLinkElement) el.href = url;
        else (el as HTMLScriptElement).src = url;
        el.onload = () => resolve();
        // Without it the template still mounts (Vue warns of the components it cannot resolve).
        el.onerror = () => {
          console.error(`ui-template: ${file} did not load`);
          resolve();
        };
        document.head.appendChild(el);
      });
      loading.set(file, p);
    }
    return p;
  };
  const prepare = (format: string): Promise<unknown> => {
    const needs = needsOf(format);
    return Promise.all([needs.vuetify ? load("vuetify.js") : null, needs.icons ? load("mdi/css/materialdesignicons.min.css") : null]);
  };
  const parentWindow = window.parent;
  const post = (data: Record<string, unknown>) => parentWindow.postMessage({ ...data, tag }, "*");
  const isBinary = (v: unknown) => v instanceof Blob || v instanceof ArrayBuffer || ArrayBuffer.isView(v);
  // A value that is not an object becomes the payload, as Dashboard 2.0's send does; what leaves is JSON.
  const send = (m: unknown) => {
    const msg = m !== null && typeof m === "object" && !Array.isArray(m) ? (m as Record<string, unknown>) : { payload: m };
    if (Object.values(msg).some(isBinary)) console.warn("ui-template: send() carries JSON; a File, Blob or ArrayBuffer arrives as an empty object. Use a ui-file-input widget for files.");
    post({ kind: "send", msg: JSON.parse(JSON.stringify(msg)) as Record<string, unknown> });
  };

  // The widget's last message, as Dashboard 2.0's `messages[id]`: `{}` before any.
  const state = Vue.reactive({ msg: {} as Record<string, unknown> });

  // Dashboard 2.0's socket, as far as a template uses it: listen for `msg-input:<id>`, emit a message.
  const handlers = new Map<string, Set<(...args: unknown[]) => void>>();
  const socket = {
    id: "template-frame",
    connected: true,
    on(event: string, fn: (...args: unknown[]) => void) {
      if (typeof fn === "function") {
        if (!handlers.has(event)) handlers.set(event, new Set());
        handlers.get(event)!.add(fn);
      }
      return socket;
    },
    once(event: string, fn: (...args: unknown[]) => void) {
      const once = (...args: unknown[]) => {
        socket.off(event, once);
        fn(...args);
      };
      return socket.on(event, once);
    },
    off(event?: string, fn?: (...args: unknown[]) => void) {
      if (event === undefined) handlers.clear();
      else if (fn === undefined) handlers.delete(event);
      else handlers.get(event)?.delete(fn);
      return socket;
    },
    emit(event: string, ...args: unknown[]) {
      // widget-send / widget-action (id, msg), widget-change (id, value): into the flow, as the template's send.
      if (event === "widget-send" || event === "widget-action") send(args[args.length - 1]);
      else if (event === "widget-change") send({ payload: args[args.length - 1] });
      return socket;
    },
  };
  /** Calls each listener; one that throws is logged and the others still run. */
  const each = (fns: Iterable<(...args: unknown[]) => void>, ...args: unknown[]) => {
    for (const fn of [...fns]) {
      try {
        fn(...args);
      } catch (err) {
        console.error(err);
      }
    }
  };

  // The frame's globals of before (plain HTML templates with `send`, `onMessage`, Dashboard 1's `scope`).
  const listeners: ((m: unknown) => void)[] = [];
  const notify = (m: Record<string, unknown>) => {
    each(listeners as ((...args: unknown[]) => void)[], m);
    window.dispatchEvent(new CustomEvent("dashboard-msg", { detail: m }));
  };
  w.send = send;
  w.onMessage = (fn: (m: unknown) => void) => {
    if (typeof fn !== "function") return;
    listeners.push(fn);
    if (Object.keys(state.msg).length) fn(state.msg);
  };
  w.scope = {
    send,
    $watch: (name: string, fn: (m: unknown) => void) => {
      if (name === "msg") w.onMessage(fn);
    },
  };

  let initialized = false;
  let id = "";
  let props: Record<string, unknown> = {};
  /** Dashboard 2.0's `setup` as templates read it: `socketio.auth.user` is the signed-in viewer (none on a share link). */
  let setup: { socketio: { auth?: { user: unknown } } } = { socketio: {} };
  let app: any = null;
  let vuetify: any = null;
  let theme: FrameTheme | undefined;
  const added: Element[] = [];
  const root = document.getElementById("flowplane-template")!;

  const showError = (err: unknown) => {
    console.error(err);
    root.textContent = "";
    const p = document.createElement("p");
    p.className = "template-error";
    p.setAttribute("role", "alert");
    p.textContent = `Template error: ${err instanceof Error ? err.message : String(err)}`;
    root.appendChild(p);
  };

  const mount = (format: string) => {
    if (app) {
      try {
        app.unmount();
      } catch (err) {
        console.error(err);
      }
      app = null;
    }
    for (const el of added.splice(0)) el.remove();
    listeners.length = 0;
    root.textContent = "";
    const doc = new DOMParser().parseFromString(format, "text/html");
    const templates = doc.getElementsByTagName("template");
    // A full component's <template>, or the whole text as the template (without its <script> and <style>).
    const template = templates.length
      ? templates[0]!.innerHTML
      : format.replace(/<script\b[\s\S]*?<\/script\s*>/gi, "").replace(/<style\b[\s\S]*?<\/style\s*>/gi, "");
    for (const style of Array.from(doc.getElementsByTagName("style"))) {
      const el = document.createElement("style");
      el.textContent = style.innerHTML;
      el.setAttribute("data-template-id", id);
      document.head.appendChild(el);
      added.push(el);
    }
    let component: TemplateScriptParts = {};
    try {
      for (const script of Array.from(doc.getElementsByTagName("script"))) {
        const src = script.getAttribute("src");
        if (src) {
          // An external dependency, into the head as Dashboard 2.0 does (it loads after the widget).
          const el = document.createElement("script");
          el.src = src;
          if (script.hasAttribute("async")) el.async = true;
          if (script.hasAttribute("defer")) el.defer = true;
          el.setAttribute("data-template-id", id);
          document.head.appendChild(el);
          added.push(el);
        } else {
          const parsed = parseScript(script.textContent ?? "");
          component = parsed.js ? { ...component, js: parsed.js } : { ...component, ...parsed };
        }
      }
    } catch (err) {
      showError(err);
      return;
    }
    const widgetId = id;
    const definition = {
      name: component.name,
      props: ["id", "props"],
      template,
      data: component.data,
      watch: { ...component.watch },
      computed: {
        msg: () => state.msg,
        // Dashboard 2.0's setup store as a template reads it: the signed-in viewer (FlowFuse's user add-on).
        setup: () => setup,
        value: {
          get: () => state.msg.payload,
          set: (val: unknown) => {
            if (state.msg.payload === val) return;
            const m = state.msg;
            m.payload = val;
            state.msg = m;
          },
        },
        ...component.computed,
      },
      methods: {
        send(m: unknown) {
          if (m) send(m);
        },
        submit(event: Event) {
          const form = event.target as HTMLFormElement;
          send({ topic: event.type, payload: Object.fromEntries(new FormData(form).entries()) });
        },
        ...component.methods,
      },
      mounted(this: unknown) {
        if (component.js) {
          try {
            new Function(component.js).call(this);
          } catch (err) {
            console.error(err);
          }
        }
        component.mounted?.call(this);
      },
      unmounted(this: unknown) {
        socket.off(`msg-input:${widgetId}`);
        component.unmounted?.call(this);
      },
      errorCaptured: (err: unknown) => {
        console.error(err);
        return false;
      },
    };
    try {
      app = Vue.createApp(definition, { id: widgetId, props });
      app.config.globalProperties.$socket = socket;
      app.provide("$socket", socket);
      app.config.errorHandler = (err: unknown) => console.error(err);
      if (w.Vuetify && !vuetify) vuetify = createVuetify(w.Vuetify);
      if (vuetify) app.use(vuetify);
      app.mount(root);
    } catch (err) {
      app = null;
      showError(err);
    }
  };

  // Vuetify reads hex colours only: any CSS colour of the dashboard's theme, as the browser resolves it.
  const hex = (color: string): string | undefined => {
    const probe = document.createElement("i");
    probe.style.color = color;
    if (!probe.style.color) return undefined;
    document.body.appendChild(probe);
    const rgb = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(getComputedStyle(probe).color);
    probe.remove();
    return rgb ? `#${rgb.slice(1, 4).map((n) => Number(n).toString(16).padStart(2, "0")).join("")}` : undefined;
  };

  const createVuetify = (Vuetify: any) => {
    const colors: Record<string, string> = {};
    for (const [name, value] of Object.entries(theme?.colors ?? {})) {
      const h = hex(value);
      if (h) colors[name] = h;
    }
    return Vuetify.createVuetify(theme ? { theme: { defaultTheme: "dashboard", themes: { dashboard: { dark: theme.dark, colors } } } } : {});
  };

  // The content's height: the body's box (a block formatting context, so its children's margins
  // count), not the document's scroll height, which is never less than the frame's own height.
  const height = () => post({ kind: "height", height: Math.ceil(document.body.getBoundingClientRect().height) });
  new ResizeObserver(height).observe(document.body);

  // A message for the template: `msg` changes, `msg-input:<id>` fires, the old globals' listeners run.
  const receive = (m: Record<string, unknown>) => {
    state.msg = m;
    each(handlers.get(`msg-input:${id}`) ?? [], m);
    notify(state.msg);
  };
  // Messages that come before the first mount (while Vuetify loads) wait for it.
  let mounted = false;
  const early: Record<string, unknown>[] = [];

  // Builds are queued: a format that needs Vuetify mounts once it has loaded, and a later one after it.
  let builds: Promise<unknown> = Promise.resolve();
  const build = (format: string, after?: () => void) => {
    builds = builds
      .then(() => prepare(format))
      .then(() => {
        mount(format);
        after?.();
      })
      .catch(showError);
  };

  window.addEventListener("message", (e: MessageEvent) => {
    if (e.source !== parentWindow) return;
    const d = e.data as Record<string, unknown> | null;
    if (!d || d.tag !== tag) return;
    if (d.kind === "init") {
      // The page sends it more than once (widgets/template.tsx): the first one counts.
      if (initialized) return;
      initialized = true;
      id = typeof d.id === "string" ? d.id : "";
      props = d.props && typeof d.props === "object" ? (d.props as Record<string, unknown>) : {};
      if (d.user && typeof d.user === "object") setup = { socketio: { auth: { user: d.user } } };
      // The page's CSS (its page:style and site:style templates): Dashboard 2.0's templates are in
      // the page's document, where that CSS reaches them.
      if (typeof d.css === "string" && d.css) {
        const el = document.createElement("style");
        el.textContent = d.css;
        el.setAttribute("data-page-css", "");
        document.head.appendChild(el);
      }
      theme = d.theme as FrameTheme | undefined;
      if (theme) {
        const html = document.documentElement;
        html.style.setProperty("--template-font", theme.font);
        if (theme.colors["on-surface"]) html.style.setProperty("--template-color", theme.colors["on-surface"]);
        html.style.colorScheme = theme.dark ? "dark" : "light";
      }
      // A widget of automatic height grows with its content; one of fixed height scrolls.
      document.documentElement.style.overflow = d.autoHeight === false ? "auto" : "hidden";
      // In the page's app bar: the teleported content in one row, at the end (actions) or the start (title).
      if (d.appBar === "actions" || d.appBar === "title") {
        document.documentElement.className = `app-bar app-bar-${d.appBar}`;
        document.documentElement.style.overflow = "hidden";
      }
      const format = typeof d.format === "string" ? d.format : "";
      const last = d.msg && typeof d.msg === "object" ? (d.msg as Record<string, unknown>) : null;
      build(format, () => {
        // The page listens now (its `init` came): a height posted before it did was lost.
        requestAnimationFrame(height);
        // After mounting, as on a page that loads: a `msg` watcher runs for the last message,
        // then for each message that came while Vuetify loaded, in order.
        if (last) state.msg = last;
        if (Object.keys(state.msg).length) notify(state.msg);
        mounted = true;
        for (const m of early.splice(0)) receive(m);
      });
    } else if (d.kind === "msg" && d.msg && typeof d.msg === "object") {
      // Before `init` nothing listens, and `init` carries the last message.
      if (!initialized) return;
      if (mounted) receive(d.msg as Record<string, unknown>);
      else early.push(d.msg as Record<string, unknown>);
    } else if (d.kind === "format" && typeof d.format === "string") {
      build(d.format);
    }
  });
  post({ kind: "ready" });
}
/* eslint-enable @typescript-eslint/no-explicit-any */
