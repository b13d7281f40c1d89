import { describe, expect, it, vi } from "vitest";
import { componentFromScript, templateNeeds } from "./template-frame";

// Dashboard 2.0's ui-template <script> (ui/src/util/vue.acorn.js): `export default { … }` is a Vue
// component of the options it supports; anything else is plain JavaScript run on mount.
describe("componentFromScript", () => {
  it("reads a component's supported options and ignores the others with a warning, as Dashboard 2.0", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const parts = componentFromScript(`
      // a counter
      export default {
        name: "Counter",
        props: ["x"],
        data() { return { count: 1 } },
        computed: { double() { return this.count * 2 } },
        methods: { inc: function () { this.count++ } },
        watch: { msg: function () {} },
        mounted() {},
        unmounted() {},
        created() {},
      }`);
    expect(Object.keys(parts).sort()).toEqual(["computed", "data", "methods", "mounted", "name", "unmounted", "watch"]);
    expect(parts.name).toBe("Counter");
    expect(parts.data!()).toEqual({ count: 1 });
    expect(typeof (parts.methods as Record<string, unknown>).inc).toBe("function");
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual(['"props" not supported in a ui-template Vue Component', '"created" not supported in a ui-template Vue Component']);
    warn.mockRestore();
  });

  it("keeps plain JavaScript to run on mount, without running it now", () => {
    const code = "window.__ranNow = true;\nthis.send('loaded')";
    expect(componentFromScript(code)).toEqual({ js: code });
    expect((globalThis as { __ranNow?: boolean }).__ranNow).toBeUndefined();
    expect(componentFromScript("  \n")).toEqual({});
  });

  it("lets helpers be declared before the export, and finds `export default` only as a statement", () => {
    const parts = componentFromScript("const start = 5;\nfunction twice(n) { return 2 * n }\nexport default { data() { return { n: twice(start) } } }");
    expect(parts.data!()).toEqual({ n: 10 });
    // A string that mentions it is plain JavaScript.
    expect(componentFromScript("const s = 'export default {}'; this.send(s)").js).toContain("this.send");
  });

  it("throws on a syntax error or an export that is not an object, as Dashboard 2.0's parser does", () => {
    expect(() => componentFromScript("export default { data() { return { a: 1 }")).toThrow(SyntaxError);
    expect(() => componentFromScript("this.send(")).toThrow(SyntaxError);
    expect(() => componentFromScript("export default 42")).toThrow("Vue SFC must default export an object expression");
  });
});

describe("templateNeeds", () => {
  const cases: Array<[string, string, { vuetify: boolean; icons: boolean }]> = [
    ["Dashboard 2.0's default template", "<template><div>{{ msg.payload }}</div></template>", { vuetify: false, icons: false }],
    ["Vue's own directives", '<div v-if="msg.payload" v-for="x in list" v-show="ok" v-model="y" @click="go"></div>', { vuetify: false, icons: false }],
    ["Vuetify's utility classes (its stylesheet is always there)", '<div class="d-flex pa-2 text-h6">x</div>', { vuetify: false, icons: false }],
    ["a Vuetify component (and so its icons)", '<v-btn color="primary">Go</v-btn>', { vuetify: true, icons: true }],
    ["a table", "<template>\n  <v-data-table :items=\"msg.payload\"></v-data-table>\n</template>", { vuetify: true, icons: true }],
    ["a Vuetify directive", '<div v-ripple class="pa-4">press</div>', { vuetify: true, icons: true }],
    ["an MDI icon alone", '<i class="mdi mdi-home"></i>', { vuetify: false, icons: true }],
    ["not a component: a word that starts with v", "<div>v-1 <video src=a></video></div>", { vuetify: false, icons: false }],
  ];
  it.each(cases)("%s", (_name, format, needs) => {
    expect(templateNeeds(format)).toEqual(needs);
  });
});
