import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";

/**
 * http-in "Accept file uploads" as Node-RED 5.0.7's (multer, memory storage): a multipart/form-data
 * POST through /hooks gives msg.req.files and the text fields in msg.payload; Node-RED's "Post file
 * to a flow" example imported as a user would; the webhook body limit (1 MiB) bounds an upload.
 */

const testApp = setUpTestApp();
const request = testApp.request;
let token: string;
let slug: string;

beforeAll(async () => {
  const user = await signUp(request);
  token = user.accessToken;
  slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } })).slug;
});

const hook = (p: string, init?: RequestInit) => handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${slug}${p}`, init));

async function deploy(name: string, nodes: unknown[], connections: unknown[]) {
  const created = await request("POST", "/flows", { token, body: { name, nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  return created.body.flow.id as string;
}

/** http-in → change (payload = {payload, body, files} of what the flow was given) → http-response (as JSON, a Buffer as {type, data}). */
function mirror(prefix: string, routePath: string, upload: boolean) {
  return {
    nodes: [
      { id: `${prefix}_in`, type: "http-in", position: { x: 0, y: 0 }, config: { method: "post", path: routePath, upload } },
      {
        id: `${prefix}_set`,
        type: "change",
        position: { x: 100, y: 0 },
        config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "{ 'payload': payload, 'body': req.body, 'files': req.files }", to_type: "jsonata" }] },
      },
      { id: `${prefix}_out`, type: "http-response", position: { x: 200, y: 0 }, config: {} },
    ],
    connections: [
      { source: `${prefix}_in`, target: `${prefix}_set` },
      { source: `${prefix}_set`, target: `${prefix}_out` },
    ],
  };
}

describe("http-in file uploads through /hooks", () => {
  it("offers 'Accept file uploads' in the editor's form (a checkbox: a boolean with its title, off by default)", async () => {
    const res = await request("GET", "/nodes/http-in/schema", { token });
    expect(res.status).toBe(200);
    expect(res.body.schema.properties.upload).toMatchObject({ type: "boolean", default: false, title: "Accept file uploads" });
    expect(res.body.defaults.upload).toBe(false);
    expect(res.body.help).toContain("msg.req.files");
  });

  it("runs Node-RED's 'Post file to a flow' example: the page names the uploaded file, and the export keeps `upload`", async () => {
    const flows = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../test/fixtures/node-red-examples/network/http/06 - Post file to a flow.json"), "utf8")) as Array<Record<string, unknown>>;
    const tab = { id: "tabupload01", type: "tab", label: "upload" };
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: [tab, ...flows.map((n) => ({ ...n, z: tab.id }))] } });
    expect(dry.status).toBe(200);
    // `upload: true` is carried over: both http in nodes import whole (no "not carried over: upload").
    expect((dry.body.report as Array<{ type: string; support: string }>).filter((r) => r.type === "http in")).toEqual([expect.objectContaining({ support: "supported" }), expect.objectContaining({ support: "supported" })]);
    const imported = await request("POST", "/flows/import", { token, body: { flows: [tab, ...flows.map((n) => ({ ...n, z: tab.id }))] } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200);

    const form = new FormData();
    form.append("file", new Blob(["Hello, World!"], { type: "text/plain" }), "hello.txt");
    const res = await hook("/hello-upload", { method: "POST", body: form });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<h1>Hello hello.txt</h1>");
    // The GET page is the form itself.
    expect(await (await hook("/hello-upload")).text()).toContain('enctype="multipart/form-data"');

    const exported = (await request("GET", `/flows/${flowId}/export`, { token })).body as Array<Record<string, unknown>>;
    const httpIns = exported.filter((n) => n.type === "http in");
    expect(httpIns.find((n) => n.method === "post")).toMatchObject({ url: "/hello-upload", upload: true });
    expect(httpIns.find((n) => n.method === "get")).toMatchObject({ url: "/hello-upload", upload: false });
  });

  it("gives every file as multer's memory storage does (bytes intact) and the text fields in msg.payload and msg.req.body", async () => {
    const flow = mirror("up1", "/upload-mirror", true);
    await deploy("upload mirror", flow.nodes, flow.connections);

    const form = new FormData();
    form.append("note", "first");
    form.append("data", new Blob([new Uint8Array([0, 255, 1, 128, 10])], { type: "application/octet-stream" }), "blob.bin");
    form.append("note", "second");
    form.append("title", "héllo");
    form.append("doc", new Blob(["plain text"], { type: "text/plain" }), "notes.txt");
    // A file input left empty: sent with no file name, not a file (multer skips it).
    form.append("empty", new Blob([], { type: "application/octet-stream" }), "");
    const res = await hook("/upload-mirror", { method: "POST", body: form });
    expect(res.status).toBe(200);
    const seen = await res.json();
    expect(seen.payload).toEqual({ note: ["first", "second"], title: "héllo" });
    expect(seen.body).toEqual(seen.payload);
    // Multer's own order of the properties (what a JSON answer shows).
    expect(seen.files.map((f: object) => Object.keys(f))[0]).toEqual(["fieldname", "originalname", "encoding", "mimetype", "buffer", "size"]);
    expect(seen.files).toEqual([
      { fieldname: "data", originalname: "blob.bin", encoding: "7bit", mimetype: "application/octet-stream", buffer: { type: "Buffer", data: [0, 255, 1, 128, 10] }, size: 5 },
      { fieldname: "doc", originalname: "notes.txt", encoding: "7bit", mimetype: "text/plain", buffer: { type: "Buffer", data: [...Buffer.from("plain text")] }, size: 10 },
    ]);
  });

  it("keeps a field named __proto__ as an ordinary field (no prototype is set)", async () => {
    const flow = mirror("up6", "/upload-proto", true);
    await deploy("upload proto", flow.nodes, flow.connections);
    const form = new FormData();
    form.append("__proto__", "polluted");
    form.append("ok", "1");
    const res = await hook("/upload-proto", { method: "POST", body: form });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"__proto__":"polluted"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses an upload over the webhook body limit (1 MiB) with 413 in the error envelope, whether declared or streamed", async () => {
    const flow = mirror("up2", "/upload-big", true);
    await deploy("upload big", flow.nodes, flow.connections);

    const form = new FormData();
    form.append("file", new Blob([Buffer.alloc(1024 * 1024, 7)], { type: "application/octet-stream" }), "big.bin");
    const declared = await hook("/upload-big", { method: "POST", body: form });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: "request body exceeds 1048576 bytes" } });

    // Streamed without a Content-Length: counted as it comes, refused past the limit.
    const encoded = new Response(form);
    const type = encoded.headers.get("content-type")!;
    const streamed = await hook("/upload-big", { method: "POST", body: encoded.body, headers: { "content-type": type }, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).error.code).toBe("PAYLOAD_TOO_LARGE");

    // Just under the limit goes through.
    const small = new FormData();
    small.append("file", new Blob([Buffer.alloc(1000 * 1000, 7)]), "ok.bin");
    const ok = await hook("/upload-big", { method: "POST", body: small });
    expect(ok.status).toBe(200);
    expect((await ok.json()).files[0]).toMatchObject({ originalname: "ok.bin", size: 1000 * 1000 });
  });

  it("answers a malformed multipart body with 400 VALIDATION_FAILED and no message", async () => {
    const flow = mirror("up3", "/upload-bad", true);
    await deploy("upload bad", flow.nodes, flow.connections);
    const noBoundary = await hook("/upload-bad", { method: "POST", body: "x", headers: { "content-type": "multipart/form-data" } });
    expect(noBoundary.status).toBe(400);
    expect((await noBoundary.json()).error).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringMatching(/multipart\/form-data/) });
    const cutShort = await hook("/upload-bad", {
      method: "POST",
      body: `--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nno closing boundary`,
      headers: { "content-type": "multipart/form-data; boundary=b" },
    });
    expect(cutShort.status).toBe(400);
    expect((await cutShort.json()).error).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringMatching(/Unexpected end of form/) });
  });

  it("without 'Accept file uploads' (or on another content type) passes the body as Node-RED does, with no files", async () => {
    const flow = mirror("up4", "/upload-off", false);
    await deploy("upload off", flow.nodes, flow.connections);
    const form = new FormData();
    form.append("file", new Blob(["abc"], { type: "text/plain" }), "a.txt");
    const off = await (await hook("/upload-off", { method: "POST", body: form })).json();
    expect(off.files).toBeUndefined();
    // Node-RED's raw body parser keeps a multipart/* body as bytes: a Buffer (as JSON, {type, data}).
    expect(off.payload).toMatchObject({ type: "Buffer", data: expect.any(Array) });
    expect(Buffer.from(off.payload.data as number[]).toString()).toContain('filename="a.txt"');
    expect(off.body).toEqual(off.payload);

    const on = mirror("up5", "/upload-json", true);
    await deploy("upload json", on.nodes, on.connections);
    const json = await (await hook("/upload-json", { method: "POST", body: '{"a":1}', headers: { "content-type": "application/json" } })).json();
    expect(json).toEqual({ payload: { a: 1 }, body: { a: 1 } });
  });

  it("gives a binary body as a Buffer of its exact bytes and a text one as text, by its media type as Node-RED does", async () => {
    // http in → http response: a Buffer payload goes back as its bytes (application/octet-stream), text as text/html.
    await deploy("raw bodies", [
      { id: "raw_in", type: "http-in", position: { x: 0, y: 0 }, config: { method: "post", path: "/raw" } },
      { id: "raw_out", type: "http-response", position: { x: 100, y: 0 }, config: {} },
    ], [{ source: "raw_in", target: "raw_out" }]);
    const bytes = Buffer.from([0xff, 0x00, 0x80, 0x41, 0xc3, 0x28]);
    for (const type of ["application/octet-stream", "image/png", "application/cbor", "application/x-protobuf", "audio/ogg; codecs=opus", "multipart/mixed; boundary=x"]) {
      const res = await hook("/raw", { method: "POST", body: bytes, headers: { "content-type": type } });
      expect(res.status, type).toBe(200);
      expect(res.headers.get("content-type"), type).toBe("application/octet-stream");
      expect(Buffer.from(await res.arrayBuffer()), type).toEqual(bytes);
    }
    for (const type of ["text/plain; charset=utf-8", "application/xml", "image/svg+xml", "application/javascript", ""]) {
      const res = await hook("/raw", { method: "POST", body: "héllo <b>", headers: type ? { "content-type": type } : {} });
      expect(res.status, type).toBe(200);
      expect(res.headers.get("content-type"), type).toMatch(/^text\/html/);
      expect(await res.text(), type).toBe("héllo <b>");
    }
  });

  it("parses a form body as Node-RED's extended parser (qs): repeated names are arrays, brackets nest; too many parameters 413, too deep 400; JSON strict", async () => {
    const flow = mirror("form", "/form", false);
    await deploy("forms", flow.nodes, flow.connections);
    const post = (body: string) => hook("/form", { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    const ok = await post("colour=red&colour=blue&address[city]=Oslo&__proto__[polluted]=1");
    expect(ok.status).toBe(200);
    expect((await ok.json()).payload).toEqual({ colour: ["red", "blue"], address: { city: "Oslo" } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const many = await post(Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join("&"));
    expect(many.status).toBe(413);
    expect((await many.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    const deep = await post(`a${"[x]".repeat(40)}=1`);
    expect(deep.status).toBe(400);
    expect((await deep.json()).error.code).toBe("VALIDATION_FAILED");
    // JSON as body-parser's strict mode: an object or an array; a bare value is refused (Node-RED: 500).
    for (const bare of ["123", ' "text"', "null"]) {
      const res = await hook("/form", { method: "POST", body: bare, headers: { "content-type": "application/json" } });
      expect(res.status, bare).toBe(400);
      expect((await res.json()).error.code).toBe("INVALID_JSON");
    }
    const empty = await hook("/form", { method: "POST", body: "", headers: { "content-type": "application/json" } });
    expect((await empty.json()).payload).toEqual({});
    // Exactly at the limit (1,000 parameters) it is a form like any other.
    const limit = await post(Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join("&"));
    expect(limit.status).toBe(200);
  });
});
