import type { OrgFiles } from "@/server/runtime/types";

/**
 * The organization's files in memory, for the runtime's own tests (no database): the same
 * contract as compose.ts's OrgFiles over PostgreSQL, with a quota per organization.
 */
export class MemoryFiles implements OrgFiles {
  readonly files = new Map<string, Buffer>();
  private readonly versions = new Map<string, number>();
  private clock = 0;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  private key(organizationId: string, path: string) {
    return `${organizationId}\u0000${path}`;
  }

  get(organizationId: string, path: string): Buffer | undefined {
    return this.files.get(this.key(organizationId, path));
  }

  set(organizationId: string, path: string, content: string | Buffer): void {
    this.files.set(this.key(organizationId, path), Buffer.from(content));
    this.versions.set(this.key(organizationId, path), ++this.clock);
  }

  private used(organizationId: string) {
    let total = 0;
    for (const [k, v] of this.files) if (k.startsWith(`${organizationId}\u0000`)) total += v.byteLength;
    return total;
  }

  async read(organizationId: string, path: string) {
    return this.get(organizationId, path) ?? null;
  }

  async write(organizationId: string, path: string, content: Uint8Array, options: { append: boolean }) {
    const before = this.get(organizationId, path);
    const next = options.append && before ? Buffer.concat([before, content]) : Buffer.from(content);
    if (this.used(organizationId) - (before?.byteLength ?? 0) + next.byteLength > this.maxBytes) {
      throw Object.assign(new Error(`the organization's files may hold at most ${this.maxBytes} bytes`), { name: "AppError", code: "FILES_QUOTA_EXCEEDED" });
    }
    this.files.set(this.key(organizationId, path), next);
    this.versions.set(this.key(organizationId, path), ++this.clock);
  }

  async delete(organizationId: string, path: string) {
    this.versions.delete(this.key(organizationId, path));
    return this.files.delete(this.key(organizationId, path));
  }

  async version(organizationId: string, path: string) {
    return this.versions.get(this.key(organizationId, path)) ?? null;
  }

  async readVersioned(organizationId: string, path: string) {
    const content = this.get(organizationId, path);
    return content ? { content, version: this.versions.get(this.key(organizationId, path))! } : null;
  }

  async replaceIf(organizationId: string, path: string, content: Uint8Array, expected: number | null) {
    if ((this.versions.get(this.key(organizationId, path)) ?? null) !== expected) return false as const;
    await this.write(organizationId, path, content, { append: false });
    return this.versions.get(this.key(organizationId, path))!;
  }
}
