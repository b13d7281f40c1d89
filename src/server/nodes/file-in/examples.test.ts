/**
 * Node-RED's own shipped examples for the file nodes (storage/read file, storage/write file,
 * vendored in src/test/fixtures/node-red-examples) through our import and engine, on in-memory
 * organization files: each example's inject is triggered and what reaches its debug node is
 * compared with what Node-RED's 10-file.js gives for it (the text written, then read back; lines;
 * base64; a deletion). Their `/tmp/hello.txt` is the organization's `tmp/hello.txt`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOurs } from "@/test/node-red-diff/run-ours";
import type { DiffCase, NodeRedNode } from "@/test/node-red-diff/types";
import { MemoryFiles } from "@/test/memory-files";

const EXAMPLES = path.resolve(import.meta.dirname, "../../../test/fixtures/node-red-examples/storage");

/** An example file as a case: tabs and comments dropped, each debug node a collector of its id, the first inject the input. */
function exampleCase(file: string): DiffCase {
  // Node-RED's old ids ("84222b92.d65d18") are not ids here: "." becomes "_", in wires too.
  const text = readFileSync(path.join(EXAMPLES, file), "utf8").replace(/"([0-9a-f]+)\.([0-9a-f]+)"/g, '"$1_$2"');
  const items = JSON.parse(text) as NodeRedNode[];
  const nodes = items.filter((n) => n.type !== "tab" && n.type !== "comment" && n.type !== "debug").map(({ z: _z, ...n }) => n as NodeRedNode);
  const inject = nodes.find((n) => n.type === "inject")!;
  return { name: file, nodes: [inject, ...nodes.filter((n) => n !== inject)], send: [{ msg: {} }], settleMs: 300 };
}

async function run(file: string, files = new MemoryFiles()) {
  const { arrivals, errors } = await runOurs(exampleCase(file), { files });
  return { payloads: arrivals.map((a) => a.msg.payload), arrivals, errors, files };
}

describe("Node-RED's file examples", () => {
  it("read file/01: writes 'Hello, World!' with a newline and reads it back as a string", async () => {
    const r = await run("read file/01 - Read string from a file.json");
    expect(r.errors).toEqual([]);
    expect(r.payloads).toEqual(["Hello, World!\n"]);
    // The node keeps its absolute filename (msg.filename is Node-RED's); it names the organization's tmp/hello.txt.
    expect(r.arrivals[0]!.msg.filename).toBe("/tmp/hello.txt");
    expect(r.files.get("org_diff", "tmp/hello.txt")!.toString()).toBe("Hello, World!\n");
  });

  it("read file/02: reads the bytes back as base64", async () => {
    const r = await run("read file/02 - Read data in specified encoding.json");
    expect(r.payloads).toEqual([Buffer.from("😀\n").toString("base64")]);
  });

  it("read file/03: one message per line, with parts", async () => {
    const r = await run("read file/03 - Read data breaking lines into messages.json");
    expect(r.payloads).toEqual(["one", "two", "three!", ""]);
    expect(r.arrivals.map((a) => (a.msg.parts as { index: number; count?: number }).count)).toEqual([undefined, undefined, undefined, 4]);
  });

  it("read file/04: lines through a switch (repairing the sequence) and a join", async () => {
    const r = await run("read file/04 - Create a message stream.json");
    expect(r.errors).toEqual([]);
    expect(r.payloads).toEqual(["Apple\nBanana\n"]);
  });

  it("write file/01 and 02: the filename from the node, and from msg.filename", async () => {
    expect((await run("write file/01 - Write string to a file.json")).payloads).toEqual(["Hello, World!\n"]);
    const byProperty = await run("write file/02 - Write string to a file specified by property.json");
    expect(byProperty.payloads).toEqual(["Hello, World!\n"]);
    expect(byProperty.files.get("org_diff", "tmp/hello.txt")!.toString()).toBe("Hello, World!\n");
  });

  it("write file/03: deletes the file; a missing one is the node's error", async () => {
    const files = new MemoryFiles();
    files.set("org_diff", "tmp/hello.txt", "x");
    const deleted = await run("write file/03 - Delete a file.json", files);
    expect(deleted.payloads).toHaveLength(1);
    expect(files.get("org_diff", "tmp/hello.txt")).toBeUndefined();
    const missing = await run("write file/03 - Delete a file.json", files);
    expect(missing.payloads).toEqual([]);
    expect(missing.errors).toEqual([expect.stringMatching(/failed to delete file: Error: ENOENT: no such file or directory, unlink 'tmp\/hello\.txt'/)]);
  });

  it("write file/04: base64 text written as the bytes it encodes", async () => {
    const r = await run("write file/04 - Specify encoding of written data.json");
    expect(r.payloads).toEqual(["😀"]);
  });
});
