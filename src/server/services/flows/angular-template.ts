/**
 * A Dashboard 1 `ui_template`'s Angular markup as Vue's, for the Dashboard 2.0 `ui-template` it
 * imports as (a Vue 3 template): the directives published flows use, each an attribute rewritten in
 * place, its expression kept (Angular's and Vue's expressions agree on what these templates write:
 * `msg.payload`, comparisons, object and array literals, `send({...})`).
 *
 * | Angular | Vue |
 * |---|---|
 * | `ng-bind-html="e"` | `v-html="e"` |
 * | `ng-bind="e"` | `v-text="e"` |
 * | `ng-if`, `ng-show` | `v-if`, `v-show` |
 * | `ng-hide="e"` | `v-show="!(e)"` |
 * | `ng-class`, `ng-style`, `ng-disabled`, `ng-checked`, `ng-selected`, `ng-readonly` | `:class`, `:style`, `:disabled`, … |
 * | `ng-src="x{{e}}"`, `ng-href` | `:src="'x' + (e)"`, `:href` |
 * | `ng-click="e"`, `ng-dblclick`, `ng-change`, `ng-submit`, `ng-mouseenter`, `ng-mouseleave` | `@click="e"`, … |
 * | `ng-repeat="x in list"` (`track by …`, `(k, v) in obj`) | `v-for="(x, $index) in list"` (`:key`, `(v, k, $index)`) |
 * | `<md-button>` (Angular Material) | `<v-btn>` (Vuetify) |
 *
 * What is not rewritten stays as written and is named (`ng-model`, whose variable Vue would need
 * declared; `ng-init`; `<script>` using Angular's `scope`; filters in `{{…}}` such as `| number:2`).
 */

/** Attributes whose value is an expression bound as it is. */
const BOUND: Record<string, string> = {
  "ng-bind-html": "v-html",
  "ng-bind": "v-text",
  "ng-if": "v-if",
  "ng-show": "v-show",
  "ng-class": ":class",
  "ng-style": ":style",
  "ng-disabled": ":disabled",
  "ng-checked": ":checked",
  "ng-selected": ":selected",
  "ng-readonly": ":readonly",
  "ng-click": "@click",
  "ng-dblclick": "@dblclick",
  "ng-change": "@change",
  "ng-submit": "@submit.prevent",
  "ng-mouseenter": "@mouseenter",
  "ng-mouseleave": "@mouseleave",
};
/** Attributes whose value is text with `{{…}}` interpolations. */
const INTERPOLATED: Record<string, string> = { "ng-src": ":src", "ng-href": ":href" };

/** An attribute `ng-…="…"` or `ng-…='…'` (the name and value as written). */
const ATTRIBUTE = /(\s)(ng-[a-z-]+)(\s*=\s*)("([^"]*)"|'([^']*)')/g;

export interface AngularTranslation {
  /** The template with the directives it rewrote. */
  format: string;
  /** Directives rewritten, each once (`ng-repeat`, `ng-bind-html`). */
  rewritten: string[];
  /** What stays Angular's and is not run: directives, and filters in `{{…}}`. */
  kept: string[];
}

/** `a{{b}}c` as a Vue expression: `'a' + (b) + 'c'`. */
function interpolation(text: string): string {
  const parts: string[] = [];
  let rest = text;
  for (let m = rest.match(/\{\{([^}]*)\}\}/); m; m = rest.match(/\{\{([^}]*)\}\}/)) {
    if (m.index! > 0) parts.push(JSON.stringify(rest.slice(0, m.index)).replaceAll('"', "'"));
    parts.push(`(${m[1]!.trim()})`);
    rest = rest.slice(m.index! + m[0].length);
  }
  if (rest) parts.push(JSON.stringify(rest).replaceAll('"', "'"));
  return parts.join(" + ") || "''";
}

/** Angular's `ng-repeat` expression as Vue's `v-for` (and its key, from `track by`), or null when it is not one of the plain forms. */
function repeat(expression: string): { vFor: string; key?: string } | null {
  const m = expression.trim().match(/^(?:\(\s*([\w$]+)\s*,\s*([\w$]+)\s*\)|([\w$]+))\s+in\s+(.+?)(?:\s+track\s+by\s+(.+))?$/);
  if (!m) return null;
  const [, key, value, item, source, trackBy] = m;
  // Angular's filters (`list | filter:q`, `| orderBy:'name'`) have no counterpart here.
  if (/(^|[^|])\|(?!\|)/.test(source!)) return null;
  // Angular's $index is in scope of every repeat: named in Vue's alias too. (key, value) in an
  // object: Vue's order is (value, key, index).
  const alias = key && value ? `(${value}, ${key}, $index)` : `(${item}, $index)`;
  return { vFor: `${alias} in ${source}`, ...(trackBy ? { key: trackBy.trim() } : {}) };
}

/** A `{{…}}` with a filter (`| name`), which Vue does not have (`||` is JavaScript's or). */
const FILTER = /\{\{[^}]*[^|]\|(?!\|)\s*[a-zA-Z][^}]*\}\}/g;

export function angularToVue(format: string): AngularTranslation {
  const rewritten = new Set<string>();
  const kept = new Set<string>();
  const escape = (value: string) => value.replaceAll('"', "&quot;");
  let out = format.replace(ATTRIBUTE, (whole, space: string, name: string, equals: string, _quoted: string, dq: string | undefined, sq: string | undefined) => {
    const value = dq ?? sq ?? "";
    // An expression in single quotes may hold double quotes: written back in double quotes, escaped.
    const attr = (vueName: string, expression: string) => `${space}${vueName}${equals}"${dq !== undefined ? expression : escape(expression)}"`;
    if (name in BOUND) {
      rewritten.add(name);
      return attr(BOUND[name]!, value);
    }
    if (name === "ng-hide") {
      rewritten.add(name);
      return attr("v-show", `!(${value})`);
    }
    if (name in INTERPOLATED) {
      rewritten.add(name);
      return attr(INTERPOLATED[name]!, value.includes("{{") ? interpolation(value) : JSON.stringify(value).replaceAll('"', "'"));
    }
    if (name === "ng-repeat") {
      const r = repeat(value);
      if (!r) {
        kept.add(name);
        return whole;
      }
      rewritten.add(name);
      return attr("v-for", r.vFor) + (r.key ? ` :key="${dq !== undefined ? r.key : escape(r.key)}"` : "");
    }
    kept.add(name);
    return whole;
  });
  // Angular Material's button, which Dashboard 1 templates use for their buttons: Vuetify's, a
  // button for the keyboard and screen readers too (an element Vue does not know is neither).
  const buttons = out.replace(/<(\/?)md-button\b/g, "<$1v-btn");
  if (buttons !== out) rewritten.add("md-button");
  out = buttons;
  // Directives in an unquoted or odd form the pattern did not take.
  for (const m of out.matchAll(/\bng-[a-z-]+(?=\s*=)/g)) kept.add(m[0]);
  for (const m of out.matchAll(FILTER)) kept.add(m[0]);
  if (/<script\b[^>]*>[\s\S]*?\bscope\b[\s\S]*?<\/script>/i.test(out)) kept.add("<script> using Angular's scope");
  return { format: out, rewritten: [...rewritten], kept: [...kept] };
}
