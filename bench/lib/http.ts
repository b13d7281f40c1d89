/** One request over the socket to the bench server; throws unless the status is the expected one. */
export async function call(baseUrl: string, method: string, path: string, options: { token?: string; headers?: Record<string, string>; body?: unknown; expect?: number } = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const res = await fetch(`${baseUrl}/api/v1${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== (options.expect ?? 200)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, text };
}
