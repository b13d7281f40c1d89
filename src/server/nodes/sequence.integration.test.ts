/**
 * The sequence nodes through the doors a user uses: a Node-RED flows.json with split, range, sort,
 * join and filter imported over REST, deployed, and called through its webhook; bad configs of every
 * sequence type refused with 400 in the error envelope.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let slug: string;

beforeAll(async () => {
  owner = await signUp(request);
  slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
});

const tab = "5e9a000000000001";
const nr = (id: string, type: string, props: Record<string, unknown>, wires: string[][] = []) => ({ id: `5e9a00000000${id}`, type, z: tab, name: "", x: 100, y: 100, ...props, wires: wires.map((p) => p.map((t) => `5e9a00000000${t}`)) });

const flowsJson = [
  { id: tab, type: "tab", label: "Sequence API", disabled: false, info: "" },
  nr("0a01", "http in", { url: "/scores", method: "post", upload: false, swaggerDoc: "" }, [["0a02"]]),
  nr("0a02", "split", { splt: "\\n", spltType: "str", arraySplt: 1, arraySpltType: "len", stream: false, addname: "", property: "payload" }, [["0a03"]]),
  nr("0a03", "range", { minin: "0", maxin: "10", minout: "0", maxout: "100", action: "clamp", round: true, property: "payload" }, [["0a04"]]),
  nr("0a04", "sort", { order: "descending", as_num: true, target: "", targetType: "seq", msgKey: "payload", msgKeyType: "elem", seqKey: "payload", seqKeyType: "msg" }, [["0a05"]]),
  nr("0a05", "join", { mode: "auto", build: "object", property: "payload", propertyType: "msg", key: "topic", joiner: "\\n", joinerType: "str", useparts: false, accumulate: "false", timeout: "", count: "", reduceRight: false }, [["0a06"]]),
  nr("0a06", "rbe", { func: "rbe", gap: "", start: "", inout: "out", septopics: true, property: "payload", topi: "topic" }, [["0a07"]]),
  nr("0a07", "http response", { statusCode: "", headers: {} }),
];

const post = (body: unknown) =>
  handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/scores`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), slug, ["scores"]);

describe("sequence nodes over REST and webhooks", () => {
  it("imports a Node-RED flow of split → range → sort → join → rbe, runs it behind a webhook, and exports it back", async () => {
    const imported = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: flowsJson } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0];
    expect(flow.nodes.map((n: { type: string }) => n.type)).toEqual(["http-in", "split", "range", "sort", "join", "filter", "http-response"]);
    expect(imported.body.warnings ?? []).toEqual([]);
    const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken });
    expect(deployed.status, deployed.text).toBe(200);

    const first = await post([3, 12, 0.55, 7]);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual([100, 70, 30, 6]);

    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: owner.accessToken })).body as Array<Record<string, unknown>>;
    const byType = (type: string) => exported.find((n) => n.type === type)!;
    expect(byType("split")).toMatchObject({ splt: "\\n", spltType: "str", arraySplt: 1 });
    expect(byType("range")).toMatchObject({ minin: "0", maxin: "10", minout: "0", maxout: "100", action: "clamp", round: true });
    expect(byType("sort")).toMatchObject({ order: "descending", as_num: true, targetType: "seq", seqKey: "payload", seqKeyType: "msg" });
    expect(byType("join")).toMatchObject({ mode: "auto" });
    expect(byType("rbe")).toMatchObject({ func: "rbe", septopics: true, property: "payload" });
  });

  it("refuses bad configs of every sequence type with 400 and the field's path", async () => {
    const bad: Array<[string, Record<string, unknown>, string]> = [
      ["split", { split_type: "bin", split: "not bytes" }, "split"],
      ["join", { mode: "reduce", reduce_expression: "$A +" }, "reduce_expression"],
      ["batch", { mode: "count", count: 3, overlap: 3 }, "overlap"],
      ["sort", { target_type: "seq", seq_key_type: "jsonata", seq_key: "(" }, "seq_key"],
      ["trigger", { op2: "{", op2_type: "json" }, "op2"],
      ["filter", { mode: "deadband", gap: -1 }, "gap"],
      ["range", { min_in: 5, max_in: 5 }, "max_in"],
    ];
    for (const [type, config, path] of bad) {
      const res = await request("POST", `/nodes/${type}/validate`, { token: owner.accessToken, body: { config } });
      expect(res.status, `${type}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const created = await request("POST", "/flows", {
      token: owner.accessToken,
      body: { name: "bad join", nodes: [{ id: "bad-join-1", type: "join", position: { x: 0, y: 0 }, config: { mode: "reduce" } }] },
    });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe("VALIDATION_FAILED");
  });
});
