import { describe, expect, it } from "vitest";
import { REDACTED, VariableSet, referencedNames, variableResolver, type VariableValue } from "./variables";
import { closingTestFlows, variablesFrom } from "@/test/runtime-harness";

const SECRET = "tok_5f2a9c81d7e4";

function set(org: Record<string, VariableValue>, flows: Record<string, Record<string, VariableValue>> = {}) {
  return new VariableSet(new Map(Object.entries(org)), new Map(Object.entries(flows).map(([id, vars]) => [id, new Map(Object.entries(vars))])));
}

/** A source whose set the test replaces, as the cache does when a variable changes. */
function mutableSource(initial: VariableSet) {
  let current = initial;
  return { current: () => current, replace: (next: VariableSet) => (current = next) };
}

const loadTestFlow = closingTestFlows();

describe("variable resolver", () => {
  const source = mutableSource(
    set(
      { API_URL: { value: "https://org.example", secret: false }, API_TOKEN: { value: SECRET, secret: true }, REGION: { value: "eu", secret: false } },
      { flw_a: { API_URL: { value: "https://flow.example", secret: false }, REGION: { value: "hidden", secret: true } } },
    ),
  );
  const resolver = variableResolver(source, { organizationId: "org_1", flowId: "flw_a", flowName: "Orders" }, { id: "n1", name: "call" });

  it("answers built-ins, the flow's value over the organization's, and never a secret from get", () => {
    expect(resolver.get("NR_NODE_ID")).toBe("n1");
    expect(resolver.get("NR_NODE_NAME")).toBe("call");
    expect(resolver.get("NR_FLOW_ID")).toBe("flw_a");
    expect(resolver.get("NR_FLOW_NAME")).toBe("Orders");
    expect(resolver.get("NR_NODE_PATH")).toBe("flw_a/n1");
    expect(resolver.get("API_URL")).toBe("https://flow.example");
    expect(resolver.get("API_TOKEN")).toBeUndefined();
    // A flow's secret hides the organization's plain value of the same name.
    expect(resolver.get("REGION")).toBeUndefined();
    expect(resolver.get("MISSING")).toBeUndefined();
  });

  it("substitutes ${NAME}; secrets only for credential properties, unknown names as empty (Node-RED)", () => {
    expect(resolver.substitute("${API_URL}/v1?t=${API_TOKEN}&x=${MISSING}")).toBe("https://flow.example/v1?t=&x=");
    expect(resolver.substitute("Bearer ${API_TOKEN}", { credential: true })).toBe(`Bearer ${SECRET}`);
    expect(resolver.substitute("no references")).toBe("no references");
    expect(resolver.substitute("$API_URL {API_URL} ${api_url}")).toBe("$API_URL {API_URL} ");
  });

  it("lists the non-secret values for function code, the same object until the set changes", () => {
    const values = resolver.values();
    expect(values).toEqual({ API_URL: "https://flow.example", NR_NODE_ID: "n1", NR_NODE_NAME: "call", NR_NODE_PATH: "flw_a/n1", NR_FLOW_ID: "flw_a", NR_FLOW_NAME: "Orders" });
    expect(resolver.values()).toBe(values);
    source.replace(set({ API_URL: { value: "https://new.example", secret: false } }));
    expect(resolver.values()).not.toBe(values);
    expect(resolver.get("API_URL")).toBe("https://new.example");
  });

  it("finds the names a text references", () => {
    expect(referencedNames("${A}/${B_2}/${A}/${lower}/$C")).toEqual(["A", "B_2", "lower"]);
  });
});

describe("redaction", () => {
  const secrets = set({ TOKEN: { value: SECRET, secret: true }, LONGER: { value: `${SECRET}-and-more`, secret: true }, PLAIN: { value: "visible", secret: false } });

  it("replaces every secret value in strings, keys and nested values, and leaves the rest alone", () => {
    const msg = { payload: { auth: `Bearer ${SECRET}`, list: [SECRET, "visible", 3], [SECRET]: true }, topic: `${SECRET}-and-more` };
    const out = secrets.redact(msg);
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out).toEqual({ payload: { auth: `Bearer ${REDACTED}`, list: [REDACTED, "visible", 3], [REDACTED]: true }, topic: REDACTED });
    const untouched = { a: "visible" };
    expect(secrets.redact(untouched)).toBe(untouched);
    expect(set({ PLAIN: { value: "x", secret: false } }).redact(msg)).toBe(msg);
  });

  it("keeps redacting a secret's earlier value after it changed", () => {
    const next = set({ TOKEN: { value: "the-new-value", secret: true } }).retaining(secrets);
    expect(next.redactText(`old ${SECRET}, new the-new-value`)).toBe(`old ${REDACTED}, new ${REDACTED}`);
    expect(next.lookup("flw_x", "TOKEN")).toEqual({ value: "the-new-value", secret: true });
  });

  it("replaces the beginning of a secret at the end of a cut text", () => {
    expect(secrets.redactText(`payload: ${SECRET.slice(0, 7)}…`)).toBe(`payload: ${REDACTED}…`);
    // The debug node cuts its status as Node-RED does, with three dots.
    expect(secrets.redactText(`{ ok: true, token: '${SECRET.slice(0, 6)}...`)).toBe(`{ ok: true, token: '${REDACTED}...`);
    expect(secrets.redactText(`status ${SECRET.slice(0, 9)}`)).toBe(`status ${REDACTED}`);
    expect(secrets.redactText("tok")).toBe("tok");
  });

  it("replaces a secret with JSON escapes in cut JSON text: quotes, backslashes, control and non-ASCII characters", () => {
    const tricky = 'p"w\\d\n\u0001é☃-9f3c';
    const escaped = set({ TRICKY: { value: tricky, secret: true } });
    const json = JSON.stringify({ payload: { password: tricky, nested: JSON.stringify({ password: tricky }) } });
    // A cut preview is text, not a value: the secret is there only in its escaped forms.
    expect(json).not.toContain(tricky);
    const cut = `${json.slice(0, json.length - 10)}…`;
    const redacted = escaped.redactText(cut);
    expect(redacted).toBe(`{"payload":{"password":"${REDACTED}","nested":"{\\"password\\":\\"${REDACTED}\\"}"}}`.slice(0, redacted.length - 1) + "…");
    // ASCII-only JSON writers escape é and ☃ too, in either case.
    const ascii = JSON.stringify(tricky).slice(1, -1).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
    expect(escaped.redactText(`x${ascii}y`)).toBe(`x${REDACTED}y`);
    expect(escaped.redactText(`x${ascii.toLowerCase()}y`)).toBe(`x${REDACTED}y`);
    // Retained after a change, in every form.
    const next = set({ TRICKY: { value: "other-secret", secret: true } }).retaining(escaped);
    expect(next.redactText(cut)).not.toContain("p\\\"w");
  });
});

describe("variables in running nodes", () => {
  it("function code reads non-secret variables with env.get, sees a change at its next message, and never a secret", async () => {
    const source = mutableSource(set({ GREETING: { value: "hello", secret: false }, API_TOKEN: { value: SECRET, secret: true } }));
    const flow = await loadTestFlow(
      [
        { id: "f", type: "function", config: { code: "msg.payload = [env.get('GREETING'), env.get('API_TOKEN'), env.get('NR_NODE_ID'), env.get('MISSING')]; return msg;" } },
        { id: "out", type: "sink" },
      ],
      [{ source: "f", target: "out" }],
      {},
      {},
      variablesFrom(source),
    );
    flow.send("f", { payload: 0 });
    await flow.waitFor(1);
    expect(flow.received[0]!.payload).toEqual(["hello", null, "f", null]);
    source.replace(set({ GREETING: { value: "bonjour", secret: false } }));
    flow.send("f", { payload: 0 });
    await flow.waitFor(2);
    expect((flow.received[1]!.payload as unknown[])[0]).toBe("bonjour");
  });

  it("device-out resolves ${NAME} in its topic at each message, never with a secret", async () => {
    const source = mutableSource(set({ SITE: { value: "plant-1", secret: false }, API_TOKEN: { value: SECRET, secret: true } }));
    const sent: Array<{ topic: string }> = [];
    const flow = await loadTestFlow(
      [{ id: "dev", type: "device-out", config: { topic: "cmd/${SITE}/${API_TOKEN}" } }],
      [],
      { sendToDevices: (_org, m) => sent.push(m) },
      {},
      variablesFrom(source),
    );
    flow.send("dev", { payload: 1 });
    await new Promise((r) => setTimeout(r, 50));
    source.replace(set({ SITE: { value: "plant-2", secret: false } }));
    flow.send("dev", { payload: 2 });
    await new Promise((r) => setTimeout(r, 50));
    expect(sent.map((m) => m.topic)).toEqual(["cmd/plant-1/", "cmd/plant-2/"]);
  });
});
