/**
 * The file and file-in nodes as Node-RED's (test/nodes/core/storage/10-file_spec.js), on the
 * organization's files (SPEC §23): the spec's cases that apply, as data (Node-RED properties in,
 * messages and files out), then the path rules and the quota through the nodes. The files here are
 * in memory (src/test/memory-files.ts); files.integration.test.ts runs the same nodes on PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { closingTestFlows } from "@/test/runtime-harness";
import { MemoryFiles } from "@/test/memory-files";
import { builtinVariables } from "@/server/runtime/memory-context";
import type { Message } from "@/server/runtime/types";
import { fileNode } from "./definition";
import { fileInNode } from "../file-in/definition";
import { FILE_ENCODINGS } from "./encodings";

const flow = closingTestFlows();
const ORG = "org_test";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Props = Record<string, unknown>;
const fromNr = (type: "file" | "file in", props: Props) => (type === "file" ? fileNode : fileInNode).nodeRed!.fromNodeRed(props);

/** A node `n` of `type` (Node-RED properties, mapped as an import maps them) → sink `s`; catch `c` → sink `caught`. */
async function load(type: "file" | "file in", props: Props, files = new MemoryFiles(), env: Record<string, string> = {}) {
  const h = await flow(
    [
      { id: "n", type: type === "file" ? "file" : "file-in", config: fromNr(type, props) },
      { id: "s", type: "sink" },
      { id: "c", type: "catch" },
      { id: "caught", type: "sink" },
    ],
    [
      { source: "n", target: "s" },
      { source: "c", target: "caught" },
    ],
    { files },
    {},
    { variables: () => builtinVariables(env) },
  );
  return { ...h, files };
}

interface WriteCase {
  name: string;
  props: Props;
  before?: Record<string, string>;
  send: Array<Partial<Message>>;
  /** The files afterwards (text). */
  files: Record<string, string | null>;
  /** Messages sent on (their payloads). */
  out: unknown[];
  errors?: RegExp[];
  env?: Record<string, string>;
}

/** From 10-file_spec.js's "file out" cases. */
const writeCases: WriteCase[] = [
  { name: "writes to a file (overwrite)", props: { filename: "test.txt", appendNewline: true, overwriteFile: true }, send: [{ payload: "test" }], files: { "test.txt": "test\n" }, out: ["test"] },
  { name: "writes a multi-byte string", props: { filename: "test.txt", appendNewline: false, overwriteFile: true }, send: [{ payload: "試験" }], files: { "test.txt": "試験" }, out: ["試験"] },
  {
    name: "appends to a file and adds newlines",
    props: { filename: "test.txt", appendNewline: true, overwriteFile: false },
    send: [{ payload: "test2" }, { payload: true }, { payload: 999 }, { payload: { a: 1 } }],
    files: { "test.txt": 'test2\ntrue\n999\n{"a":1}\n' },
    out: ["test2", true, 999, { a: 1 }],
  },
  {
    name: "appends, without a newline after the last part of a split string",
    props: { filename: "test.txt", appendNewline: true, overwriteFile: false },
    send: [
      { payload: "Line1", parts: { index: 0, type: "string" } },
      { payload: "Line2", parts: { index: 1, type: "string" } },
      { payload: "Line3", parts: { index: 2, type: "string" } },
      { payload: "Line4", parts: { index: 3, type: "string", count: 4 } },
    ],
    files: { "test.txt": "Line1\nLine2\nLine3\nLine4" },
    out: ["Line1", "Line2", "Line3", "Line4"],
  },
  { name: "appends to an existing file", props: { filename: "test.txt", appendNewline: false, overwriteFile: "false" }, before: { "test.txt": "one" }, send: [{ payload: "two" }], files: { "test.txt": "onetwo" }, out: ["two"] },
  { name: "bytes are written as they are, never with a newline", props: { filename: "b.bin", appendNewline: true, overwriteFile: "true" }, send: [{ payload: Buffer.from([0, 1, 2, 255]) }], files: { "b.bin": "\u0000\u0001\u0002\ufffd" }, out: [Buffer.from([0, 1, 2, 255])] },
  {
    name: "uses msg.filename when the node has none (pre-3.0: empty filename, no filenameType)",
    props: { filename: "", appendNewline: true, overwriteFile: "true" },
    send: [{ payload: "fine", filename: "other.txt" }],
    files: { "other.txt": "fine\n" },
    out: ["fine"],
  },
  {
    name: "uses a msg property from the typed input, and a number as a filename",
    props: { filename: "_user_specified_filename", filenameType: "msg", appendNewline: false, overwriteFile: "true" },
    send: [{ payload: "x", _user_specified_filename: "a.txt" }, { payload: "y", _user_specified_filename: 3 }],
    files: { "a.txt": "x", "3": "y" },
    out: ["x", "y"],
  },
  { name: "uses a JSONata filename", props: { filename: '"tes" & "t.txt"', filenameType: "jsonata", appendNewline: false, overwriteFile: "true" }, send: [{ payload: "j" }], files: { "test.txt": "j" }, out: ["j"] },
  { name: "uses env.TEST_FILE", props: { filename: "TEST_FILE", filenameType: "env", appendNewline: false, overwriteFile: "true" }, env: { TEST_FILE: "from-env.txt" }, send: [{ payload: "e" }], files: { "from-env.txt": "e" }, out: ["e"] },
  { name: "deletes the file", props: { filename: "test.txt", overwriteFile: "delete" }, before: { "test.txt": "gone" }, send: [{ payload: "" }], files: { "test.txt": null }, out: [""] },
  {
    name: "deleting a missing file is an error, and nothing is sent",
    props: { filename: "nope.txt", overwriteFile: "delete" },
    send: [{ payload: "" }],
    files: { "nope.txt": null },
    out: [],
    errors: [/^failed to delete file: Error: ENOENT: no such file or directory, unlink 'nope\.txt'$/],
  },
  { name: "ignores a missing payload", props: { filename: "test.txt", overwriteFile: "true" }, send: [{ topic: "test" }], files: { "test.txt": null }, out: [] },
  {
    name: "writes into any folder: folders are parts of paths, never missing (Node-RED's 'fails to create a directory' does not apply)",
    props: { filename: "dir/sub/test.txt", overwriteFile: "false", createDir: false, appendNewline: false },
    send: [{ payload: "x" }],
    files: { "dir/sub/test.txt": "x" },
    out: ["x"],
  },
  {
    name: "writes into a new folder when asked to create it",
    props: { filename: "dir/sub/test.txt", overwriteFile: "true", createDir: true, appendNewline: false },
    send: [{ payload: "x" }],
    files: { "dir/sub/test.txt": "x" },
    out: ["x"],
  },
  {
    name: "writes to several files named by msg.filename",
    props: { filename: "filename", filenameType: "msg", appendNewline: true, overwriteFile: "false" },
    send: [
      { payload: "a1", filename: "one.txt" },
      { payload: "b1", filename: "two.txt" },
      { payload: "a2", filename: "one.txt" },
    ],
    files: { "one.txt": "a1\na2\n", "two.txt": "b1\n" },
    out: ["a1", "b1", "a2"],
  },
  { name: "an absolute filename is taken relative to the organization's files", props: { filename: "/home/pi/x.txt", appendNewline: false, overwriteFile: "true" }, send: [{ payload: "abs" }], files: { "home/pi/x.txt": "abs" }, out: ["abs"] },
  {
    name: "an absolute msg.filename is taken relative too",
    props: { filename: "filename", filenameType: "msg", appendNewline: false, overwriteFile: "true", createDir: true },
    send: [{ payload: "abs", filename: "/var/log/app.log" }],
    files: { "var/log/app.log": "abs" },
    out: ["abs"],
  },
];

describe("file node: Node-RED's cases", () => {
  for (const c of writeCases) {
    it(c.name, async () => {
      const files = new MemoryFiles();
      for (const [path, text] of Object.entries(c.before ?? {})) files.set(ORG, path, text);
      const h = await load("file", c.props, files, c.env);
      for (const m of c.send) h.send("n", m);
      if (c.out.length > 0) await h.waitFor(c.out.length);
      await sleep(60);
      expect(h.arrivals.filter((a) => a.sink === "s").map((a) => a.msg.payload)).toEqual(c.out);
      for (const [path, text] of Object.entries(c.files)) {
        const stored = files.get(ORG, path);
        expect(stored === undefined ? null : stored.toString(), path).toEqual(text);
      }
      expect(h.errors.map((e) => e.error)).toHaveLength(c.errors?.length ?? 0);
      (c.errors ?? []).forEach((re, i) => expect(h.errors[i]!.error).toMatch(re));
    });
  }

  it("sets msg.filename to the name it used", async () => {
    const h = await load("file", { filename: "name", filenameType: "msg", overwriteFile: "true" });
    h.send("n", { payload: "p", name: "/abs/n.txt" });
    const [m] = await h.waitFor(1);
    expect(m!.filename).toBe("/abs/n.txt");
  });

  it("warns when no filename is given, and writes nothing", async () => {
    const h = await load("file", { filename: "nothing", filenameType: "msg" });
    h.send("n", { payload: "nofile" });
    await sleep(60);
    expect(h.received).toHaveLength(0);
    expect(h.files.files.size).toBe(0);
  });

  it("handles messages one at a time, in order (appends never interleave)", async () => {
    const h = await load("file", { filename: "seq.txt", appendNewline: true, overwriteFile: "false" });
    for (let i = 0; i < 50; i++) h.send("n", { payload: i });
    await h.waitFor(50);
    expect(h.files.get(ORG, "seq.txt")!.toString()).toBe(Array.from({ length: 50 }, (_, i) => `${i}\n`).join(""));
  });

  it("encodes with every encoding Node-RED offers that iconv-lite knows, and with msg.encoding when set by msg", async () => {
    const known = FILE_ENCODINGS.filter((e) => iconv.encodingExists(e));
    const h = await load("file", { filename: "filename", filenameType: "msg", appendNewline: false, overwriteFile: "true", encoding: "setbymsg" });
    for (const encoding of known) h.send("n", { payload: "Hello", filename: `enc/${encoding}.txt`, encoding });
    await h.waitFor(known.length);
    for (const encoding of known) expect(h.files.get(ORG, `enc/${encoding}.txt`), encoding).toEqual(iconv.encode("Hello", encoding));
  });
});

describe("file node: the organization's storage", () => {
  for (const [name, filename] of [
    ["..", "../escape.txt"],
    ["climbing above the root in the middle", "a/../../escape.txt"],
    ["NUL", "a\u0000b.txt"],
    ["a control character", "a\u0007b.txt"],
    ["an empty segment", "a//b.txt"],
    ["a name over 255 bytes", `${"x".repeat(256)}.txt`],
    ["a path over 1024 bytes", Array.from({ length: 6 }, () => "y".repeat(200)).join("/")],
    ["a path over 1024 bytes in three-byte characters", Array.from({ length: 5 }, () => "文".repeat(70)).join("/")],
  ] as const) {
    it(`a filename with ${name} is the node's error, to catch nodes, and nothing is written`, async () => {
      const h = await load("file", { filename: "filename", filenameType: "msg", overwriteFile: "true", createDir: true });
      h.send("n", { payload: "x", filename });
      const [caught] = await h.waitFor(1);
      expect((caught!.error as { message: string }).message).toMatch(/^invalid filename ".*": /);
      expect(h.errors).toHaveLength(1);
      expect(h.files.files.size).toBe(0);
      expect(h.arrivals.map((a) => a.sink)).toEqual(["caught"]);
    });
  }

  it("a write past the organization's quota is the node's error; the file is unchanged", async () => {
    const files = new MemoryFiles(10);
    files.set(ORG, "q.txt", "12345");
    const h = await load("file", { filename: "q.txt", appendNewline: false, overwriteFile: "false" }, files);
    h.send("n", { payload: "123456" });
    const [caught] = await h.waitFor(1);
    expect((caught!.error as { message: string }).message).toMatch(/^failed to append to file: Error: the organization's files may hold at most 10 bytes/);
    expect(files.get(ORG, "q.txt")!.toString()).toBe("12345");
  });

  it("a file named before the byte bounds (86 three-byte characters: 258 bytes) is still read and deleted; a new one so named is refused", async () => {
    const legacy = "文".repeat(86);
    const files = new MemoryFiles();
    files.set(ORG, legacy, "old");
    const read = await load("file in", { filename: legacy, format: "utf8" }, files);
    read.send("n", { payload: "" });
    expect((await read.waitFor(1))[0]).toMatchObject({ payload: "old" });
    const write = await load("file", { filename: `${legacy}-new`, overwriteFile: "true" }, files);
    write.send("n", { payload: "x" });
    expect(((await write.waitFor(1))[0]!.error as { message: string }).message).toMatch(/at most 255 bytes/);
    const remove = await load("file", { filename: legacy, overwriteFile: "delete" }, files);
    remove.send("n", { payload: "" });
    await remove.waitFor(1);
    expect(files.get(ORG, legacy)).toBeUndefined();
  });

  it("another organization's files are never reached", async () => {
    const files = new MemoryFiles();
    files.set("org_other", "secret.txt", "theirs");
    const h = await load("file in", { filename: "secret.txt", format: "utf8", sendError: false }, files);
    h.send("n", { payload: "" });
    const [caught] = await h.waitFor(1);
    expect((caught!.error as { message: string }).message).toBe("Error: ENOENT: no such file or directory, open 'secret.txt'");
    expect(h.arrivals.map((a) => a.sink)).toEqual(["caught"]);
  });
});

interface ReadCase {
  name: string;
  props: Props;
  content: string | Buffer;
  send?: Partial<Message>;
  /** What reaches the sink, property by property. */
  out: Array<Record<string, unknown>>;
}

const FILE_TEXT = "File message line 1\nFile message line 2\n";

/** From 10-file_spec.js's "file in" cases. */
const readCases: ReadCase[] = [
  { name: "reads a file and outputs a buffer", props: { filename: "f.txt", format: "" }, content: FILE_TEXT, out: [{ payload: Buffer.from(FILE_TEXT) }] },
  { name: "reads a file and outputs a utf8 string", props: { filename: "f.txt", format: "utf8" }, content: FILE_TEXT, out: [{ payload: FILE_TEXT }] },
  { name: "reads a file with a JSONata filename", props: { filename: '"f" & ".txt"', filenameType: "jsonata", format: "utf8" }, content: FILE_TEXT, out: [{ payload: FILE_TEXT }] },
  { name: "reads a file ending in cr", props: { filename: "f.txt", format: "utf8" }, content: "Text ending in cr\r", out: [{ payload: "Text ending in cr\r" }] },
  {
    name: "outputs split lines with parts (only topic and filename)",
    props: { filename: "f.txt", format: "lines" },
    content: FILE_TEXT,
    send: { payload: "", topic: "A", foo: "bar" },
    out: [
      { payload: "File message line 1", topic: "A", filename: "f.txt", foo: undefined, parts: { index: 0, ch: "\n", type: "string" } },
      { payload: "File message line 2", topic: "A", parts: { index: 1, ch: "\n", type: "string" } },
      { payload: "", topic: "A", parts: { index: 2, count: 3, ch: "\n", type: "string" } },
    ],
  },
  {
    name: "outputs split lines with an empty line, count on the last",
    props: { filename: "f.txt", format: "lines" },
    content: "-\n\n-\n",
    out: [
      { payload: "-", parts: { index: 0, ch: "\n", type: "string" } },
      { payload: "", parts: { index: 1 } },
      { payload: "-", parts: { index: 2 } },
      { payload: "", parts: { index: 3, count: 4 } },
    ],
  },
  {
    name: "outputs split lines with all the message's properties",
    props: { filename: "f.txt", format: "lines", allProps: true },
    content: FILE_TEXT,
    send: { payload: "", topic: "B", foo: "bar", bar: "foo" },
    out: [
      { payload: "File message line 1", topic: "B", foo: "bar", bar: "foo" },
      { payload: "File message line 2", foo: "bar" },
      { payload: "", foo: "bar", parts: { index: 2, count: 3 } },
    ],
  },
  { name: "outputs a buffer with parts (stream), count on the last chunk", props: { filename: "f.txt", format: "stream" }, content: "x".repeat(40), out: [{ payload: Buffer.from("x".repeat(40)), parts: { index: 0, count: 1, ch: "", type: "buffer" } }] },
  {
    name: "stream: 64 KiB chunks; a file of whole chunks ends with a message without payload",
    props: { filename: "f.bin", format: "stream" },
    content: Buffer.alloc(2 * 65536, 7),
    out: [
      { payload: Buffer.alloc(65536, 7), parts: { index: 0, ch: "", type: "buffer" } },
      { payload: Buffer.alloc(65536, 7), parts: { index: 1 } },
      { payload: undefined, parts: { index: 2, count: 2 } },
    ],
  },
  { name: "reads a file using msg.filename (pre-3.0 empty filename)", props: { filename: "", format: "utf8" }, content: "by msg", send: { payload: "", filename: "f.txt" }, out: [{ payload: "by msg", filename: "f.txt" }] },
  { name: "strips tabs and line breaks from the filename", props: { filename: "filename", filenameType: "msg", format: "utf8" }, content: "clean", send: { payload: "", filename: "f.\ttxt\n" }, out: [{ payload: "clean", filename: "f.txt" }] },
];

describe("file-in node: Node-RED's cases", () => {
  for (const c of readCases) {
    it(c.name, async () => {
      const files = new MemoryFiles();
      files.set(ORG, c.props.filename === "" ? "f.txt" : String(c.props.filename).includes("bin") ? "f.bin" : "f.txt", c.content);
      const h = await load("file in", c.props, files);
      h.send("n", c.send ?? { payload: "" });
      const got = await h.waitFor(c.out.length);
      await sleep(30);
      expect(h.received).toHaveLength(c.out.length);
      c.out.forEach((expected, i) => {
        for (const [key, value] of Object.entries(expected)) {
          const actual = got[i]![key];
          if (value !== null && typeof value === "object" && !Buffer.isBuffer(value)) expect(actual, `${i}.${key}`).toMatchObject(value);
          else if (Buffer.isBuffer(value)) expect(Buffer.from(actual as Uint8Array).equals(value), `${i}.${key}`).toBe(true);
          else expect(actual, `${i}.${key}`).toEqual(value);
        }
      });
      // parts.id is the input message's id, the same on every part.
      const ids = new Set(got.map((m) => (m.parts as { id?: string } | undefined)?.id).filter(Boolean));
      expect(ids.size).toBeLessThanOrEqual(1);
      expect(h.errors).toEqual([]);
    });
  }

  it("a missing file: the node's error (ENOENT) to catch nodes; with sendError (absent in old flows: on) also the message without payload and with msg.error", async () => {
    const h = await load("file in", { filename: "badfile", format: "" });
    h.send("n", { payload: "" });
    await h.waitFor(2);
    const sent = h.arrivals.find((a) => a.sink === "s")!.msg;
    expect(sent).not.toHaveProperty("payload");
    expect(sent.error).toMatchObject({ code: "ENOENT", message: "ENOENT: no such file or directory, open 'badfile'" });
    const caught = h.arrivals.find((a) => a.sink === "caught")!.msg;
    // As Node-RED's catch sees it: the Error's toString().
    expect((caught.error as { message: string }).message).toBe("Error: ENOENT: no such file or directory, open 'badfile'");
  });

  it("a missing file without sendError: only the error", async () => {
    const h = await load("file in", { filename: "badfile", format: "", sendError: false });
    h.send("n", { payload: "" });
    await h.waitFor(1);
    await sleep(30);
    expect(h.arrivals.map((a) => a.sink)).toEqual(["caught"]);
  });

  it("a filename that would leave the organization's files: the node's error, nothing read", async () => {
    const files = new MemoryFiles();
    const h = await load("file in", { filename: "../../etc/passwd", format: "utf8", sendError: false }, files);
    h.send("n", { payload: "" });
    const [caught] = await h.waitFor(1);
    expect((caught!.error as { message: string }).message).toMatch(/^Error: invalid filename "\.\.\/\.\.\/etc\/passwd": must stay inside the organization's files/);
    expect(h.arrivals.map((a) => a.sink)).toEqual(["caught"]);
  });

  it("decodes with every encoding Node-RED offers that iconv-lite knows", async () => {
    const known = FILE_ENCODINGS.filter((e) => iconv.encodingExists(e));
    const files = new MemoryFiles();
    // base64 and hex "encode" text that is already base64 or hex, as in Node-RED.
    const sample = (encoding: string) => (encoding === "base64" ? "SGVsbG8=" : encoding === "hex" ? "48656c6c6f" : "Hello");
    for (const encoding of known) files.set(ORG, `enc/${encoding}`, iconv.encode(sample(encoding), encoding));
    for (const encoding of known) {
      const h = await load("file in", { filename: `enc/${encoding}`, format: "utf8", encoding }, files);
      h.send("n", { payload: "" });
      const [m] = await h.waitFor(1);
      expect(m!.payload, encoding).toBe(sample(encoding));
    }
  });

  it("reads text in a double-byte encoding", async () => {
    const files = new MemoryFiles();
    files.set(ORG, "sjis.txt", iconv.encode("試験", "Shift_JIS"));
    const h = await load("file in", { filename: "sjis.txt", format: "utf8", encoding: "Shift_JIS" }, files);
    h.send("n", { payload: "" });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("試験");
  });
});

describe("file nodes: Node-RED mapping", () => {
  it("exports the properties Node-RED writes and imports them back", () => {
    const nr = { filename: "data/x.txt", filenameType: "str", appendNewline: false, createDir: true, overwriteFile: "delete", encoding: "cp1252" };
    const ours = fileNode.configSchema.parse(fileNode.nodeRed!.fromNodeRed(nr));
    expect(fileNode.nodeRed!.toNodeRed(ours)).toEqual(nr);
    const nrIn = { filename: "payload", filenameType: "msg", format: "lines", chunk: false, sendError: true, encoding: "utf8", allProps: true };
    const oursIn = fileInNode.configSchema.parse(fileInNode.nodeRed!.fromNodeRed(nrIn));
    expect(fileInNode.nodeRed!.toNodeRed(oursIn)).toEqual(nrIn);
  });

  it("upgrades a pre-3.0 ${NAME} filename to env, as Node-RED's editor does", () => {
    expect(fileNode.nodeRed!.fromNodeRed({ filename: "${LOG}" })).toMatchObject({ filename: "LOG", filename_type: "env" });
  });
});
