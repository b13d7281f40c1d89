/**
 * http-in file uploads on two real instances: a multipart/form-data POST taken by the instance that
 * does not run the flow is parsed there and crosses to the one that does (fields and files, bytes
 * intact), as a request to a flow running on this instance would.
 */
import { describe, expect, it } from "vitest";
import { placedOn, twoInstances } from "@/test/two-instances";

const BASE_PORT = 4550;

const two = twoInstances({ basePort: BASE_PORT });

describe("file uploads across instances", () => {
  it("an upload taken by the other instance reaches the flow with its fields and bytes; a binary body as its exact bytes", async () => {
    const { cluster, token, slug } = two;
    const a = cluster.node("a");
    const created = await a.request("POST", "/flows", {
      token,
      body: {
        name: "uploads",
        nodes: [
          { id: "cu_in", type: "http-in", config: { method: "post", path: "/cluster-upload", upload: true } },
          { id: "cu_set", type: "change", config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "{ 'payload': payload, 'files': req.files }", to_type: "jsonata" }] } },
          { id: "cu_out", type: "http-response" },
          { id: "cu_raw", type: "http-in", config: { method: "post", path: "/cluster-raw" } },
          { id: "cu_raw_out", type: "http-response" },
        ],
        connections: [
          { source: "cu_raw", target: "cu_raw_out" },
          { source: "cu_in", target: "cu_set" },
          { source: "cu_set", target: "cu_out" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    expect((await a.request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");
    const runsOn = await placedOn(a, flowId, token);
    const other = cluster.live().find((n) => n.instanceId !== runsOn)!;

    const bytes = Buffer.from([0, 1, 254, 255, 13, 10, 45, 45]);
    const body = Buffer.concat([
      Buffer.from('--XyZ\r\ncontent-disposition: form-data; name="label"\r\n\r\nsensor 7\r\n'),
      Buffer.from('--XyZ\r\ncontent-disposition: form-data; name="reading"; filename="r.bin"\r\ncontent-type: application/octet-stream\r\n\r\n'),
      bytes,
      Buffer.from("\r\n--XyZ--\r\n"),
    ]);
    const res = await other.request("POST", `/hooks/${slug}/cluster-upload`, { rawBody: body, headers: { "content-type": "multipart/form-data; boundary=XyZ" } });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      payload: { label: "sensor 7" },
      files: [{ fieldname: "reading", originalname: "r.bin", encoding: "7bit", mimetype: "application/octet-stream", buffer: { type: "Buffer", data: [...bytes] }, size: bytes.length }],
    });
    // Without uploads, an application/octet-stream body is a Buffer (as Node-RED's raw parser gives
    // it), sent back by http response as the same bytes, across the instances.
    const raw = await other.request("POST", `/hooks/${slug}/cluster-raw`, { rawBody: bytes, headers: { "content-type": "application/octet-stream" } });
    expect(raw.status, raw.text).toBe(200);
    expect(raw.headers.get("content-type")).toBe("application/octet-stream");
    expect(raw.bytes).toEqual(bytes);
  }, 60_000);
});
