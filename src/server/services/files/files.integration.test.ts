/**
 * The organization's files (SPEC §23) through the doors a user uses: /files over REST (raw bytes,
 * every bad input a 4xx with nothing changed, roles and API-key scopes, tenant isolation), the
 * quota under concurrent writers, and the file / file-in nodes in a deployed flow behind webhooks.
 * Small limits (FILES_MAX_BYTES 4096, FILES_MAX_UPLOAD_BYTES 1024) so the refusals are cheap.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { testCaller, type TestResponse } from "@/test/app";
import { handleWebhook } from "@/server/api/rest/webhook-handler";
import { createRestCore } from "@/server/api/rest/handler";
import { appRouter } from "@/server/api/root";
import { limitTrpcBody } from "@/server/api/trpc-body-limit";
import { fileUsage, fileVersion, listFiles, writeFile } from "./file-store";

const testApp = setUpTestApp({ FILES_MAX_BYTES: "4096", FILES_MAX_UPLOAD_BYTES: "1024", FILES_MAX_COUNT: "8" });
const request = testApp.request;
type User = Awaited<ReturnType<typeof signUp>>;
let owner: User;
let other: User;

beforeAll(async () => {
  owner = await signUp(request);
  other = await signUp(request);
});

const put = (token: string, path: string, content: string | Buffer) =>
  request("PUT", `/files/${path}`, { token, rawBody: Buffer.from(content), headers: { "content-type": "application/octet-stream" } });
const uid = (p: string) => `${p}${randomBytes(4).toString("hex")}`;

describe("/files over REST", () => {
  it("stores, lists, downloads, replaces and deletes a file with its bytes as they are", async () => {
    const user = await signUp(request);
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x00, 0x7f]);
    const created = await put(user.accessToken, "data/raw.bin", bytes);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ file: { path: "data/raw.bin", size: 6, updated_at: expect.any(String) }, created: true });

    const got = await request("GET", "/files/data/raw.bin", { token: user.accessToken });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''raw.bin");
    expect(got.bytes.equals(bytes)).toBe(true);
    // The same file, its path percent-encoded as one segment.
    expect((await request("GET", "/files/data%2Fraw.bin", { token: user.accessToken })).bytes.equals(bytes)).toBe(true);

    const replaced = await put(user.accessToken, "data/raw.bin", "hello");
    expect(replaced.status).toBe(200);
    expect(replaced.body.created).toBe(false);
    await put(user.accessToken, "notes.txt", "n");
    const list = await request("GET", "/files", { token: user.accessToken });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      files: [
        { path: "data/raw.bin", size: 5, updated_at: expect.any(String) },
        { path: "notes.txt", size: 1, updated_at: expect.any(String) },
      ],
      next_cursor: null,
      used_bytes: 6,
      max_bytes: 4096,
      max_file_bytes: 1024,
    });

    expect((await request("DELETE", "/files/data/raw.bin", { token: user.accessToken })).status).toBe(204);
    const gone = await request("GET", "/files/data/raw.bin", { token: user.accessToken });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("NOT_FOUND");
    expect((await request("DELETE", "/files/data/raw.bin", { token: user.accessToken })).status).toBe(404);
    expect((await request("GET", "/files", { token: user.accessToken })).body.used_bytes).toBe(1);
  });

  it("lists in pages with limit and cursor (SPEC §1); a cursor it did not hand out is 400", async () => {
    const user = await signUp(request);
    for (const name of ["c.txt", "a.txt", "b/x.txt", "b/y.txt", "d.txt"]) await put(user.accessToken, name, "1");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: TestResponse<{ files: Array<{ path: string }>; next_cursor: string | null }> = await request("GET", `/files?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { token: user.accessToken });
      expect(page.status, page.text).toBe(200);
      expect(page.body.files.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.files.map((f) => f.path));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["a.txt", "b/x.txt", "b/y.txt", "c.txt", "d.txt"]);
    for (const bad of ["not*base64", Buffer.from("../x").toString("base64url")]) {
      const res = await request("GET", `/files?limit=2&cursor=${bad}`, { token: user.accessToken });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ path: "cursor", message: "is not a cursor from a previous page" }]);
    }
    expect((await request("GET", "/files?limit=0", { token: user.accessToken })).status).toBe(400);
  });

  it("takes an absolute path relative to the organization's files", async () => {
    const user = await signUp(request);
    expect((await put(user.accessToken, "%2Fhome%2Fpi%2Fx.txt", "abs")).body.file.path).toBe("home/pi/x.txt");
    expect((await request("GET", "/files/home/pi/x.txt", { token: user.accessToken })).text).toBe("abs");
    expect((await request("GET", "/files/a/../home/pi/x.txt", { token: user.accessToken })).text).toBe("abs");
  });

  it.each([
    ["..", "..%2Fescape.txt", /must stay inside the organization's files/],
    ["..  in the middle", "a%2F..%2F..%2Fescape.txt", /must stay inside/],
    ["NUL", "a%00b.txt", /NUL/],
    ["a control character", "a%07b.txt", /control characters/],
    ["an empty segment", "a//b.txt", /empty segments/],
    ["a trailing slash", "a%2F", /not end with \//],
    // A write names its bound in bytes; a read or a delete in the characters files were once named by.
    ["a name over 255 bytes", `${"x".repeat(256)}`, /at most 255 (bytes|characters)/],
    ["a path over 1024 bytes", Array.from({ length: 6 }, () => "y".repeat(200)).join("/"), /at most 1024 (bytes|characters)/],
    ["bad percent-encoding", "%E0%A4%A", /percent-encoded/],
  ])("refuses a path with %s: 400 VALIDATION_FAILED, nothing stored", async (_what, path, message) => {
    const user = await signUp(request);
    for (const method of ["PUT", "GET", "DELETE"]) {
      const res = method === "PUT" ? await put(user.accessToken, path, "x") : await request(method, `/files/${path}`, { token: user.accessToken });
      expect(res.status, `${method} ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.message).toMatch(message);
    }
    expect((await request("GET", "/files", { token: user.accessToken })).body.files).toEqual([]);
  });

  it("refuses an upload over FILES_MAX_UPLOAD_BYTES with 413, and one past FILES_MAX_BYTES with 507 FILES_QUOTA_EXCEEDED; nothing written", async () => {
    const user = await signUp(request);
    const big = await put(user.accessToken, "big.bin", Buffer.alloc(1025));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    for (let i = 0; i < 4; i++) expect((await put(user.accessToken, `f${i}.bin`, Buffer.alloc(1000))).status).toBe(201);
    const full = await put(user.accessToken, "f4.bin", Buffer.alloc(200));
    expect(full.status).toBe(507);
    expect(full.body.error).toMatchObject({ code: "FILES_QUOTA_EXCEEDED", message: expect.stringMatching(/at most 4 KiB \(4096 bytes\): 4000 bytes are used and this write needs 200 more/) });
    // Replacing a file with a smaller one frees room; the same size again fits exactly.
    expect((await put(user.accessToken, "f0.bin", Buffer.alloc(904))).status).toBe(200);
    expect((await put(user.accessToken, "f4.bin", Buffer.alloc(192))).status).toBe(201);
    const list = await request("GET", "/files", { token: user.accessToken });
    expect(list.body.used_bytes).toBe(4096);
    expect(list.body.files.map((f: { path: string }) => f.path)).not.toContain("big.bin");
  });

  it("bounds a path in UTF-8 bytes when it is written (400, nothing stored); a file named before, within the old bounds in characters, is still read and deleted", async () => {
    const user = await signUp(request);
    for (const [path, message] of [
      [encodeURIComponent("文".repeat(86)), /at most 255 bytes/],
      [Array.from({ length: 5 }, () => encodeURIComponent("文".repeat(70))).join("/"), /at most 1024 bytes/],
    ] as const) {
      const refused = await put(user.accessToken, path, "x");
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error.message).toMatch(message);
    }
    expect(await listFiles(testApp.app.db.prisma, user.organizationId)).toEqual([]);
    // Named when the bounds were 255 characters a name: 258 bytes.
    const legacy = `${"文".repeat(86)}.txt`;
    await writeFile(testApp.app.db.prisma, user.organizationId, legacy, Buffer.from("kept"), { append: false, limits: { maxBytes: 4096, maxFileBytes: 1024 } });
    expect((await request("GET", `/files/${encodeURIComponent(legacy)}`, { token: user.accessToken })).text).toBe("kept");
    expect((await request("DELETE", `/files/${encodeURIComponent(legacy)}`, { token: user.accessToken })).status).toBe(204);
  });

  it("needs a credential (401); viewers read, members write (403 for a viewer's PUT and DELETE)", async () => {
    await put(owner.accessToken, "shared.txt", "team");
    expect((await request("GET", "/files")).status).toBe(401);
    expect((await request("PUT", "/files/x.txt", { rawBody: Buffer.from("x") })).status).toBe(401);
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    expect((await request("GET", "/files/shared.txt", { token: viewer.token })).text).toBe("team");
    const refused = await put(viewer.token, "shared.txt", "pwned");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("FORBIDDEN");
    expect((await request("DELETE", "/files/shared.txt", { token: viewer.token })).status).toBe(403);
    const member = await joinAs(testApp.app, request, owner, "member");
    expect((await put(member.token, "shared.txt", "edited")).status).toBe(200);
    expect((await request("GET", "/files/shared.txt", { token: owner.accessToken })).text).toBe("edited");
  });

  it("reads an upload's bytes only for a caller allowed to make it: no credential, a wrong key, a viewer and a key without files:write are refused unread", async () => {
    const core = createRestCore({ router: appRouter, getAppServices: async () => testApp.app });
    let reads = 0;
    const upload = (headers: Record<string, string>) =>
      core({
        method: "PUT",
        target: "/api/v1/files/unread.bin",
        header: (name) => headers[name] ?? (name === "content-type" ? "application/octet-stream" : null),
        readBody: null,
        readBytes: async () => {
          reads++;
          return { ok: true, bytes: Buffer.from("read") };
        },
      });
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const readOnly = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "reader", scopes: ["files:read"] } });
    const refusals = [
      [{}, 401],
      [{ "x-api-key": `service_${"A".repeat(43)}` }, 401],
      [{ authorization: `Bearer ${viewer.token}` }, 403],
      [{ "x-api-key": readOnly.body.secret as string }, 403],
    ] as const;
    for (const [headers, status] of refusals) expect((await upload(headers)).status).toBe(status);
    expect(reads).toBe(0);
    expect((await upload({ authorization: `Bearer ${owner.accessToken}` })).status).toBe(201);
    expect(reads).toBe(1);
    expect((await request("GET", "/files/unread.bin", { token: owner.accessToken })).text).toBe("read");

    // tRPC's files.upload (the Files page): without any credential its body (up to 16 MiB) is not read either.
    let pulled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled = true;
        controller.enqueue(new TextEncoder().encode('{"path":"x","content_base64":""}'));
        controller.close();
      },
    }, { highWaterMark: 0 });
    const anonymous = await limitTrpcBody(new Request("http://app.test/api/trpc/files.upload", { method: "POST", body, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit), appRouter, "/api/trpc");
    expect(anonymous).toBeInstanceOf(Response);
    expect((anonymous as Response).status).toBe(401);
    expect(pulled).toBe(false);
  });

  it("API keys need files:read / files:write", async () => {
    const user = await signUp(request);
    await put(user.accessToken, "k.txt", "key");
    const flowsOnly = await request("POST", "/api-keys", { token: user.accessToken, body: { name: "flows", scopes: ["flows:read", "flows:write"] } });
    const filesRead = await request("POST", "/api-keys", { token: user.accessToken, body: { name: "files", scopes: ["files:read"] } });
    const filesWrite = await request("POST", "/api-keys", { token: user.accessToken, body: { name: "files rw", scopes: ["files:read", "files:write"] } });
    const as = (key: { body: { secret: string } }) => ({ "x-api-key": key.body.secret });
    const denied = await request("GET", "/files", { headers: as(flowsOnly) });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("INSUFFICIENT_SCOPE");
    expect((await request("GET", "/files/k.txt", { headers: as(filesRead) })).text).toBe("key");
    expect((await request("PUT", "/files/k.txt", { headers: as(filesRead), rawBody: Buffer.from("no") })).status).toBe(403);
    expect((await request("PUT", "/files/k.txt", { headers: as(filesWrite), rawBody: Buffer.from("yes") })).status).toBe(200);
    expect((await request("GET", "/files/k.txt", { token: user.accessToken })).text).toBe("yes");
  });

  it("keeps organizations apart: another organization cannot list, read, replace or delete a file (404, as a missing one)", async () => {
    await put(owner.accessToken, "private/secret.txt", "owner's");
    expect((await request("GET", "/files", { token: other.accessToken })).body.files.map((f: { path: string }) => f.path)).not.toContain("private/secret.txt");
    const read = await request("GET", "/files/private/secret.txt", { token: other.accessToken });
    expect(read.status).toBe(404);
    expect(read.text).not.toContain("owner's");
    expect((await request("DELETE", "/files/private/secret.txt", { token: other.accessToken })).status).toBe(404);
    // A PUT of the same path writes the caller's own file, never the other's.
    expect((await put(other.accessToken, "private/secret.txt", "other's")).status).toBe(201);
    expect((await request("GET", "/files/private/secret.txt", { token: owner.accessToken })).text).toBe("owner's");
    expect((await request("GET", "/files/private/secret.txt", { token: other.accessToken })).text).toBe("other's");
  });
});

describe("the quota under concurrency", () => {
  it("twenty writers at once over REST: only those that fit are stored, and the usage matches the files", async () => {
    const user = await signUp(request);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put(user.accessToken, `c/${i}.bin`, Buffer.alloc(1000))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(4);
    expect(statuses.filter((s) => s === 507)).toHaveLength(16);
    const files = await listFiles(testApp.app.db.prisma, user.organizationId);
    expect(files).toHaveLength(4);
    expect(await fileUsage(testApp.app.db.prisma, user.organizationId)).toBe(4000);
  });

  it("at most FILES_MAX_COUNT files, empty ones too, however many are made at once: the others 507 and nothing stored; a replacement is not a new file", async () => {
    const user = await signUp(request);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => put(user.accessToken, `empty/${i}.txt`, "")));
    expect(results.filter((r) => r.status === 201)).toHaveLength(8);
    const refused = results.filter((r) => r.status === 507);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.body.error).toMatchObject({ code: "FILES_QUOTA_EXCEEDED", message: expect.stringContaining("at most 8 files") });
    expect(await listFiles(testApp.app.db.prisma, user.organizationId)).toHaveLength(8);
    const kept = (await listFiles(testApp.app.db.prisma, user.organizationId))[0]!.path;
    expect((await put(user.accessToken, kept, "replaced")).status).toBe(200);
    expect((await request("DELETE", `/files/${kept}`, { token: user.accessToken })).status).toBe(204);
    expect((await put(user.accessToken, "empty/new.txt", "")).status).toBe(201);
  });

  it("appends at once (as file nodes do): never past the quota, and no append is lost", async () => {
    const user = await signUp(request);
    const limits = { maxBytes: 4096, maxFileBytes: 8192 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, () => writeFile(testApp.app.db.prisma, user.organizationId, "log.txt", Buffer.alloc(100, 97), { append: true, limits })),
    );
    const stored = outcomes.filter((o) => o.status === "fulfilled").length;
    expect(stored).toBe(40);
    expect([...new Set(outcomes.filter((o) => o.status === "rejected").map((o) => String((o as PromiseRejectedResult).reason.code ?? (o as PromiseRejectedResult).reason)))]).toEqual(["FILES_QUOTA_EXCEEDED"]);
    const [file] = await listFiles(testApp.app.db.prisma, user.organizationId);
    expect(file!.size).toBe(4000);
    expect(await fileUsage(testApp.app.db.prisma, user.organizationId)).toBe(4000);
  });

  it("writes only over the version it read (SQLite's write-back): the first of two wins, the other finds a conflict and nothing of it is kept", async () => {
    const user = await signUp(request);
    const prisma = testApp.app.db.prisma;
    const limits = { maxBytes: 1 << 20, maxFileBytes: 1 << 20 };
    expect(await fileVersion(prisma, user.organizationId, "db/x.db")).toBeNull();
    // null: only if there is no such file yet.
    const first = await writeFile(prisma, user.organizationId, "db/x.db", Buffer.from("one"), { append: false, limits, ifVersion: null });
    expect("conflict" in first).toBe(false);
    const v1 = await fileVersion(prisma, user.organizationId, "db/x.db");
    expect(await writeFile(prisma, user.organizationId, "db/x.db", Buffer.from("again"), { append: false, limits, ifVersion: null })).toEqual({ conflict: true });
    // Two writers that read v1: one lands, the other conflicts, whatever their timing (versions grow with every write, even in one millisecond).
    const both = await Promise.all(["a", "b"].map((c) => writeFile(prisma, user.organizationId, "db/x.db", Buffer.from(c), { append: false, limits, ifVersion: v1 })));
    expect(both.filter((r) => "conflict" in r)).toHaveLength(1);
    const v2 = await fileVersion(prisma, user.organizationId, "db/x.db");
    expect(v2).toBeGreaterThan(v1!);
    const writes = await Promise.all(Array.from({ length: 5 }, () => writeFile(prisma, user.organizationId, "db/x.db", Buffer.from("z"), { append: false, limits })));
    const versions = writes.map((w) => w.updatedAt.getTime()).sort((a, b) => a - b);
    expect(new Set(versions).size).toBe(5);
    expect(versions[0]).toBeGreaterThan(v2!);
  });
});

describe("the Files page's procedures (tRPC)", () => {
  it("uploads base64, previews text and bytes, deletes", async () => {
    const user = await signUp(request);
    const caller = testCaller(testApp.app, { credentials: { authorization: `Bearer ${user.accessToken}` } });
    const up = await caller.files.upload({ path: "page/a.txt", content_base64: Buffer.from("héllo").toString("base64") });
    expect(up).toMatchObject({ created: true, file: { path: "page/a.txt", size: 6 } });
    expect(await caller.files.read({ path: "page/a.txt" })).toMatchObject({ encoding: "utf8", content: "héllo", truncated: false });
    await caller.files.upload({ path: "page/b.bin", content_base64: Buffer.from([0, 255, 1]).toString("base64") });
    expect(await caller.files.read({ path: "page/b.bin" })).toMatchObject({ encoding: "base64", content: "AP8B" });
    await expect(caller.files.upload({ path: "../x", content_base64: "eA==" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.files.upload({ path: "x", content_base64: "not base64!" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await caller.files.delete({ path: "page/a.txt" });
    expect((await caller.files.list()).files.map((f) => f.path)).toEqual(["page/b.bin"]);
  });
});

describe("file nodes in a deployed flow", () => {
  let slug: string;
  let otherSlug: string;
  beforeAll(async () => {
    slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
    otherSlug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: other.organizationId } })).slug;
  });

  const hook = async (orgSlug: string, method: string, path: string, body?: string) => {
    const res = await handleWebhook(
      testApp.app,
      new Request(`http://app.test/hooks/${orgSlug}/${path}`, { method, body, headers: body === undefined ? {} : { "content-type": "text/plain" } }),
      orgSlug,
      path.split("?")[0]!.split("/"),
    );
    return { status: res.status, text: await res.text() };
  };

  /** A flow: POST /<p>-write appends the body to log.txt; GET /<p>-read?name=… reads that file; errors answer 500 with their message. */
  async function deploy(user: User, prefix: string) {
    const ids = Object.fromEntries(["wIn", "write", "wOut", "rIn", "read", "rOut", "catch", "say", "cOut"].map((k) => [k, uid(`${k}-`)]));
    const flow = await request("POST", "/flows", {
      token: user.accessToken,
      body: {
        name: `files ${prefix}`,
        nodes: [
          { id: ids.wIn, type: "http-in", config: { method: "post", path: `/${prefix}-write` } },
          { id: ids.write, type: "file", config: { filename: "logs/log.txt", append_newline: true, overwrite_file: "false" } },
          { id: ids.wOut, type: "http-response" },
          { id: ids.rIn, type: "http-in", config: { method: "get", path: `/${prefix}-read` } },
          { id: ids.read, type: "file-in", config: { filename: "req.query.name", filename_type: "msg", format: "utf8" } },
          { id: ids.rOut, type: "http-response" },
          { id: ids.catch, type: "catch" },
          { id: ids.say, type: "change", config: { rules: [{ t: "set", p: "payload", p_type: "msg", to: "error.message", to_type: "msg" }, { t: "set", p: "statusCode", p_type: "msg", to: "500", to_type: "num" }] } },
          { id: ids.cOut, type: "http-response" },
        ],
        connections: [
          { source: ids.wIn, target: ids.write },
          { source: ids.write, target: ids.wOut },
          { source: ids.rIn, target: ids.read },
          { source: ids.read, target: ids.rOut },
          { source: ids.catch, target: ids.say },
          { source: ids.say, target: ids.cOut },
        ],
      },
    });
    expect(flow.status, flow.text).toBe(201);
    const deployed = await request("POST", `/flows/${flow.body.flow.id}/deploy`, { token: user.accessToken });
    expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  }

  it("a flow writes a file that the flow reads back and /files serves; a path that would leave the files is the node's error and reads nothing", async () => {
    await deploy(owner, "own");
    expect(await hook(slug, "POST", "own-write", "first")).toMatchObject({ status: 200 });
    expect(await hook(slug, "POST", "own-write", "second")).toMatchObject({ status: 200 });
    expect(await hook(slug, "GET", "own-read?name=logs/log.txt")).toEqual({ status: 200, text: "first\nsecond\n" });
    expect((await request("GET", "/files/logs/log.txt", { token: owner.accessToken })).text).toBe("first\nsecond\n");
    // An uploaded file is what the flow reads.
    await put(owner.accessToken, "conf/settings.json", '{"a":1}');
    expect(await hook(slug, "GET", "own-read?name=/conf/settings.json")).toEqual({ status: 200, text: '{"a":1}' });
    expect(await hook(slug, "GET", "own-read?name=missing.txt")).toEqual({ status: 500, text: "Error: ENOENT: no such file or directory, open 'missing.txt'" });
    const escape = await hook(slug, "GET", "own-read?name=../../etc/passwd");
    expect(escape.status).toBe(500);
    expect(escape.text).toMatch(/^Error: invalid filename "\.\.\/\.\.\/etc\/passwd": must stay inside the organization's files/);
    expect(escape.text).not.toContain("root:");
  });

  it("another organization's flow cannot read this organization's files through a node", async () => {
    await put(owner.accessToken, "private/secret.txt", "owner's");
    await deploy(other, "oth");
    const res = await hook(otherSlug, "GET", "oth-read?name=private/secret.txt");
    expect(res.text).not.toContain("owner's");
    // The other organization has its own file of that path (written above): it reads that one.
    expect(res).toEqual({ status: 200, text: "other's" });
    const none = await hook(otherSlug, "GET", "oth-read?name=logs/log.txt");
    expect(none).toEqual({ status: 500, text: "Error: ENOENT: no such file or directory, open 'logs/log.txt'" });
  });

  it("a write past the quota is the node's error, and nothing is written", async () => {
    const user = await signUp(request);
    const userSlug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } })).slug;
    await deploy(user, "full");
    for (let i = 0; i < 4; i++) await put(user.accessToken, `fill${i}.bin`, Buffer.alloc(1020));
    const res = await hook(userSlug, "POST", "full-write", "x".repeat(100));
    expect(res.status).toBe(500);
    expect(res.text).toMatch(/^failed to append to file: Error: the organization's files may hold at most 4 KiB/);
    expect((await request("GET", "/files/logs/log.txt", { token: user.accessToken })).status).toBe(404);
  });
});
