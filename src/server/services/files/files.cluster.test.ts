/**
 * SPEC §23 on two real instances against one PostgreSQL and one Redis: a file written by a flow
 * running on one instance is read by a flow running on the other (the files are rows of the shared
 * database, not a disk of either instance), and /files on either instance serves it.
 */
import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/test/cluster";
import { placedOn, twoInstances, deployVia } from "@/test/two-instances";

const BASE_PORT = 4150;

const two = twoInstances({ basePort: BASE_PORT });

const deploy = (via: ClusterNode, name: string, nodes: unknown[], connections: unknown[]) => deployVia(two, via, name, nodes, connections);


describe("files across instances", () => {
  it("a file written by a flow on one instance is read by a flow on the other", async () => {
    const { cluster, token, slug } = two;
    try {
      const a = cluster.node("a");
      const writer = await deploy(
        a,
        "writer",
        [
          { id: "cf_w_in", type: "http-in", config: { method: "post", path: "/cluster-write" } },
          { id: "cf_w_file", type: "file", config: { filename: "shared/state.txt", overwrite_file: "true", append_newline: false } },
          { id: "cf_w_out", type: "http-response" },
        ],
        [
          { source: "cf_w_in", target: "cf_w_file" },
          { source: "cf_w_file", target: "cf_w_out" },
        ],
      );
      const writerOn = await placedOn(a, writer, token);
      // A deploy runs the flow on the instance that takes the request: the reader goes to the other one.
      const b = cluster.live().find((n) => n.instanceId !== writerOn)!;
      const reader = await deploy(
        b,
        "reader",
        [
          { id: "cf_r_in", type: "http-in", config: { method: "get", path: "/cluster-read" } },
          { id: "cf_r_file", type: "file-in", config: { filename: "/shared/state.txt", format: "utf8" } },
          { id: "cf_r_out", type: "http-response" },
        ],
        [
          { source: "cf_r_in", target: "cf_r_file" },
          { source: "cf_r_file", target: "cf_r_out" },
        ],
      );
      expect(await placedOn(a, reader, token)).not.toBe(writerOn);
      const readerPath = "cluster-read";
      const writing = cluster.byInstance(writerOn);
      const other = cluster.live().find((n) => n !== writing)!;

      // Each request enters the instance that runs its flow.
      const wrote = await writing.request("POST", `/hooks/${slug}/cluster-write`, { rawBody: "written on one instance", headers: { "content-type": "text/plain" } });
      expect(wrote.status, wrote.text).toBe(200);
      const read = await other.request("GET", `/hooks/${slug}/${readerPath}`);
      expect(read).toMatchObject({ status: 200, text: "written on one instance" });
      // And /files on either instance serves the same file.
      for (const node of [writing, other]) expect((await node.request("GET", "/files/shared/state.txt", { token })).text).toBe("written on one instance");

      // A file uploaded through the other instance is what the flows see next.
      expect((await other.request("PUT", "/files/shared/state.txt", { token, rawBody: Buffer.from("uploaded"), headers: { "content-type": "application/octet-stream" } })).status).toBe(200);
      expect((await writing.request("GET", `/hooks/${slug}/${readerPath}`)).text).toBe("uploaded");
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  });
});
