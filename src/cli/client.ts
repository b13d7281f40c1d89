import createClient from "openapi-fetch";
import type { paths } from "../generated/openapi/v1";

export type ApiClient = ReturnType<typeof createClient<paths>>;

/** The REST API's one error envelope (SPEC §1). */
interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> };
}

/** An answer of the API that is not a success: the CLI prints its message and exits 1. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ApiFailure";
  }
}

/** A client typed from the OpenAPI document (src/generated/openapi/v1.ts), authenticated with an API key. */
export function apiClient(url: string, apiKey: string, fetchImpl: typeof fetch = fetch): ApiClient {
  return createClient<paths>({
    baseUrl: url.replace(/\/+$/, ""),
    headers: { "X-API-Key": apiKey, "User-Agent": "flowplane-cli" },
    fetch: fetchImpl,
  });
}

/** The data of an openapi-fetch result, or an ApiFailure carrying the API's own message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  const envelope = (result.error ?? {}) as ErrorEnvelope;
  const details = envelope.error?.details?.map((d) => `${d.path ? `${d.path}: ` : ""}${d.message}`).join("; ");
  const message = envelope.error?.message ?? `HTTP ${result.response.status} ${result.response.statusText}`;
  throw new ApiFailure(details && !message.includes(details) ? `${message} (${details})` : message, result.response.status, envelope.error?.code);
}
