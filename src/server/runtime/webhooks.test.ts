import { afterEach, describe, expect, it, vi } from "vitest";
import { errorTable } from "../errors";
import { WebhookRegistry, type WebhookResponse } from "./webhooks";

afterEach(() => {
  vi.useRealTimers();
});

describe("WebhookRegistry", () => {
  it("answers a request its flow leaves unanswered with 504 GATEWAY_TIMEOUT from the one error table", () => {
    vi.useFakeTimers();
    const registry = new WebhookRegistry();
    const answers: WebhookResponse[] = [];
    registry.openResponse({ flowId: "flw_1", organizationId: "org_1" }, (r) => answers.push(r));
    vi.advanceTimersByTime(29_999);
    expect(answers).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual([
      {
        status: errorTable.GATEWAY_TIMEOUT.status,
        headers: { "content-type": "application/json" },
        body: { error: { code: "GATEWAY_TIMEOUT", message: "the flow did not answer in time" } },
      },
    ]);
    expect(answers[0]!.status).toBe(504);
  });
});
