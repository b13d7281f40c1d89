import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { deepFreeze } from "@/shared/deep-freeze";
import { jsonBodyOf } from "@/server/api/frozen-output";
import { chooseCoding, compressedBody } from "./compression";

const large = () => deepFreeze({ items: Array.from({ length: 800 }, (_, i) => ({ id: i, text: `entry number ${i} of the list` })) });

describe("chooseCoding", () => {
  it("prefers Brotli for kept bodies and gzip for bodies made per answer, among codings the client rates alike", () => {
    expect(chooseCoding("gzip, deflate, br, zstd", true)).toBe("br");
    expect(chooseCoding("gzip, deflate, br, zstd", false)).toBe("gzip");
    expect(chooseCoding("br", false)).toBe("br");
    expect(chooseCoding("gzip", true)).toBe("gzip");
  });

  it("follows the client's q-values over the server's preference", () => {
    expect(chooseCoding("br;q=0.5, gzip", true)).toBe("gzip");
    expect(chooseCoding("gzip;q=0.2, br", false)).toBe("br");
    expect(chooseCoding("br;q=0, *", true)).toBe("gzip");
  });

  it("answers identity without the header, for identity alone, for codings it does not make, or when all are refused", () => {
    for (const accept of [undefined, "", "identity", "deflate", "zstd", "br;q=0, gzip;q=0", "*;q=0"]) expect(chooseCoding(accept, true), String(accept)).toBeNull();
  });

  it("reads a malformed header as no preference rather than failing, and codings case-insensitively", () => {
    for (const accept of [";;,", "gzip;q=abc", "gzip;q=-1", "\u0000"]) expect(chooseCoding(accept, true), accept).toBeNull();
    expect(chooseCoding("GZIP", true)).toBe("gzip");
    expect(chooseCoding(" , ,br", false)).toBe("br");
  });
});

describe("compressedBody", () => {
  it("compresses a kept body once per coding and hands every later answer the same bytes", async () => {
    const body = jsonBodyOf(large());
    expect(Buffer.isBuffer(body)).toBe(true);
    const first = compressedBody(body as Buffer, "br");
    const waiting = compressedBody(body as Buffer, "br");
    expect(Buffer.isBuffer(first)).toBe(false);
    const [a, b] = await Promise.all([first, waiting]);
    expect(a).toBe(b);
    expect(compressedBody(body as Buffer, "br")).toBe(a);
    expect(zlib.brotliDecompressSync(a!).equals(body as Buffer)).toBe(true);
    const gz = await compressedBody(body as Buffer, "gzip");
    expect(zlib.gunzipSync(gz!).equals(body as Buffer)).toBe(true);
    expect(compressedBody(body as Buffer, "gzip")).toBe(gz);
  });

  it("compresses other bodies anew each time", async () => {
    const body = Buffer.from(JSON.stringify({ ...large() }));
    const a = await compressedBody(body, "gzip");
    const b = await compressedBody(body, "gzip");
    expect(a).not.toBe(b);
    expect(zlib.gunzipSync(a!).equals(body)).toBe(true);
  });
});
