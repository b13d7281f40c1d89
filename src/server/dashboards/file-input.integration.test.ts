import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { sessionCookie, setUpDashboardSockets } from "@/test/dashboard";
import { DASHBOARD_LIMITS } from "@/shared/dashboard";

/**
 * SPEC §21, Dashboard 2.0's ui-file-input through the door a browser uses: the file goes over the
 * dashboard socket in `dashboard.upload` chunks, each answered, and reaches the flow as one message
 * with a Buffer payload and `msg.file`; what is too large, out of order, forged or from a view-only
 * link is refused and sends nothing.
 */
const testApp = setUpTestApp();
const dash = setUpDashboardSockets(testApp, { uploadStallMs: 300 });
const request = testApp.request;
const CHUNK = (DASHBOARD_LIMITS.uploadChunkChars / 4) * 3;

async function fileDashboard(token: string) {
  const post = async (body: Record<string, unknown>) => {
    const res = await request("POST", "/config-nodes", { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.config_node.id as string;
  };
  const base = await post({ type: "ui-base", name: "Lab", config: {} });
  const page = await post({ type: "ui-page", name: "Upload", config: { ui: base, path: "/upload", order: 1 } });
  const group = await post({ type: "ui-group", name: "Files", config: { page, width: 6, order: 1 } });
  const created = await request("POST", "/flows", {
    token,
    body: {
      name: "uploads",
      nodes: [
        { id: "up_in", type: "ui-file-input", position: { x: 0, y: 0 }, config: { group, label: "Sample", topic: "sample", topicType: "str", order: 1 } },
        // What a user does with an upload: saves it (write file, named by msg.file.name), then says so.
        { id: "up_save", type: "file", position: { x: 200, y: 0 }, config: { filename: "file.name", filename_type: "msg", overwrite_file: "true", append_newline: false } },
        {
          id: "up_fn",
          type: "change",
          position: { x: 300, y: 0 },
          config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "$join([msg.file.name, msg.file.type, $string(msg.file.size), msg.topic, $type(msg._client.socketId)], ' ')", to_type: "jsonata" }, { t: "delete", p: "_client", p_type: "msg" }] },
        },
        { id: "up_txt", type: "ui-text", position: { x: 400, y: 0 }, config: { group, label: "Received", order: 2 } },
      ],
      connections: [
        { source: "up_in", target: "up_save" },
        { source: "up_save", target: "up_fn" },
        { source: "up_fn", target: "up_txt" },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token })).status).toBe(200);
  return { page };
}

const chunksOf = (bytes: Buffer) => {
  const out: string[] = [];
  for (let i = 0; i < Math.max(1, bytes.length); i += CHUNK) out.push(bytes.subarray(i, i + CHUNK).toString("base64"));
  return out;
};

describe("ui-file-input over the dashboard socket", () => {
  it("a file in chunks reaches the flow as a Buffer with msg.file and the topic; each chunk is answered; the page carries the limit", async () => {
    const owner = await signUp(request);
    await fileDashboard(owner.accessToken);
    const slug = (await request("GET", "/auth/profile", { token: owner.accessToken })).body.organization.slug as string;
    const socket = connect(dash.url(slug, "/upload"), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.groups[0].widgets[0]).toMatchObject({ id: "up_in", type: "ui-file-input", props: { label: "Sample", maxFileSize: 1_000_000 } });

    const bytes = Buffer.alloc(400_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
    const parts = chunksOf(bytes);
    expect(parts).toHaveLength(3);
    const file = { name: "scan.bin", size: bytes.length, type: "application/octet-stream" };
    for (let seq = 0; seq < parts.length; seq++) {
      socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "u1", seq, ...(seq === 0 ? { file } : {}), data: parts[seq], last: seq === parts.length - 1 });
      const ack = await socket.next((f) => f.type === "dashboard.upload" && f.upload_id === "u1" && f.received === Math.min(bytes.length, (seq + 1) * CHUNK));
      expect(ack.done).toBe(seq === parts.length - 1);
    }
    const shown = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "up_txt");
    expect(shown.msg.payload).toBe("scan.bin application/octet-stream 400000 sample string");
    // The bytes the flow got are the file's: saved by the write-file node as they came.
    const saved = await request("GET", "/files/scan.bin", { token: owner.accessToken });
    expect(saved.status).toBe(200);
    expect(saved.bytes.equals(bytes)).toBe(true);

    // An empty file is a file too.
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "u2", seq: 0, file: { name: "empty.txt", size: 0, type: "text/plain" }, data: "", last: true });
    expect(await socket.next((f) => f.type === "dashboard.upload" && f.upload_id === "u2")).toMatchObject({ received: 0, done: true });
    expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "up_txt" && String(f.msg.payload).includes("empty.txt"))).msg.payload).toBe("empty.txt text/plain 0 sample string");
    expect((await request("GET", "/files/empty.txt", { token: owner.accessToken })).bytes.length).toBe(0);
    socket.ws.close();
  });

  it("refuses what is too large, out of order, more or fewer bytes than said, not base64, not a file input, or forged as an input; nothing reaches the flow", async () => {
    const owner = await signUp(request);
    const { page: pageId } = await fileDashboard(owner.accessToken);
    const slug = (await request("GET", "/auth/profile", { token: owner.accessToken })).body.organization.slug as string;
    const socket = connect(dash.url(slug, "/upload"), await sessionCookie(testApp.app, owner));
    await socket.next((f) => f.type === "dashboard.page");
    const refusal = (id: string) => socket.next((f) => f.type === "dashboard.error" && f.upload_id === id);
    const file = (size: number) => ({ name: "x.bin", size, type: "" });

    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "big", seq: 0, file: file(1_000_001), data: "", last: false });
    expect(await refusal("big")).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "noname", seq: 0, data: "", last: true });
    expect(await refusal("noname")).toMatchObject({ code: "VALIDATION_FAILED" });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "skip", seq: 1, data: "AAAA", last: true });
    expect(await refusal("skip")).toMatchObject({ code: "VALIDATION_FAILED" });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "more", seq: 0, file: file(2), data: "AAAA", last: true });
    expect(await refusal("more")).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("more bytes") });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "fewer", seq: 0, file: file(9), data: "AAAA", last: true });
    expect(await refusal("fewer")).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("fewer bytes") });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "junk", seq: 0, file: file(3), data: "<script>", last: true });
    expect(await refusal("junk")).toMatchObject({ code: "VALIDATION_FAILED" });
    socket.send({ type: "dashboard.upload", widget_id: "up_txt", upload_id: "text", seq: 0, file: file(3), data: "AAAA", last: true });
    expect(await refusal("text")).toMatchObject({ code: "NOT_FOUND" });
    // Every chunk but the last is full-sized: a flood of small or empty chunks is refused at once.
    const full = "A".repeat(DASHBOARD_LIMITS.uploadChunkChars);
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "tiny", seq: 0, file: file(CHUNK + 3), data: "AAAA", last: false });
    expect(await refusal("tiny")).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("every chunk but the last") });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "empty", seq: 0, file: file(CHUNK + 3), data: "", last: false });
    expect(await refusal("empty")).toMatchObject({ code: "VALIDATION_FAILED" });
    // Another upload cannot continue one that was dropped.
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "half", seq: 0, file: file(CHUNK + 3), data: full, last: false });
    expect(await socket.next((f) => f.type === "dashboard.upload" && f.upload_id === "half")).toMatchObject({ received: CHUNK, done: false });
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "other", seq: 1, data: "AAAA", last: true });
    expect(await refusal("other")).toMatchObject({ code: "VALIDATION_FAILED" });
    // An upload that goes quiet is dropped: its next chunk is refused.
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "quiet", seq: 0, file: file(CHUNK + 3), data: full, last: false });
    await socket.next((f) => f.type === "dashboard.upload" && f.upload_id === "quiet");
    await new Promise((r) => setTimeout(r, 600));
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "quiet", seq: 1, data: "AAAA", last: true });
    expect(await refusal("quiet")).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("seq") });
    // A file forged as a plain input is refused (the upload path holds the limit).
    socket.send({ type: "dashboard.input", widget_id: "up_in", event: "upload", msg: { payload: "AAAA", file: file(3) } });
    expect(await socket.next((f) => f.type === "dashboard.error" && f.message === "files are sent as dashboard.upload")).toMatchObject({ code: "VALIDATION_FAILED" });
    // A frame over the chunk size is refused by the schema.
    socket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "fat", seq: 0, file: file(200_000), data: "A".repeat(DASHBOARD_LIMITS.uploadChunkChars + 4), last: true });
    expect(await socket.next((f) => f.type === "dashboard.error" && String(f.message).startsWith("data"))).toMatchObject({ code: "VALIDATION_FAILED" });

    // As many bytes of files a second as one file may have: two large files at once, the second is refused.
    const bucket = connect(dash.url(slug, "/upload"), await sessionCookie(testApp.app, owner));
    await bucket.next((f) => f.type === "dashboard.page");
    bucket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "b1", seq: 0, file: file(900_000), data: full, last: false });
    bucket.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "b2", seq: 0, file: file(900_000), data: full, last: false });
    expect(await bucket.next((f) => f.type === "dashboard.error" && f.upload_id === "b2")).toMatchObject({ code: "RATE_LIMITED" });
    bucket.ws.close();

    // A view-only share link cannot upload.
    const link = await request("POST", "/dashboards/share-links", { token: owner.accessToken, body: { page_id: pageId } });
    expect(link.status, link.text).toBe(201);
    const visitor = connect(dash.url(slug, "/upload", link.body.share_link.token));
    await visitor.next((f) => f.type === "dashboard.page");
    visitor.send({ type: "dashboard.upload", widget_id: "up_in", upload_id: "v", seq: 0, file: file(3), data: "AAAA", last: true });
    expect(await visitor.next((f) => f.type === "dashboard.error" && f.upload_id === "v")).toMatchObject({ code: "FORBIDDEN" });

    await new Promise((r) => setTimeout(r, 300));
    expect([...socket.frames, ...visitor.frames].filter((f) => f.type === "dashboard.update")).toEqual([]);
    socket.ws.close();
    visitor.ws.close();
  });
});
