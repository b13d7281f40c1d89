import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect } from "@/test/ws";
import { joinAs, signUp } from "@/test/accounts";
import { buildButtonTextDashboard, sessionCookie, setUpDashboardSockets } from "@/test/dashboard";
import { DASHBOARD_CLOSE } from "@/shared/dashboard";

/**
 * A viewer's access ending reaches an open dashboard socket at once, as it reaches /ws: a revoked
 * session closes its sockets, a removed member's are checked again and closed, on the channels
 * every instance listens to; not at the next periodic check (30 s, left at its default here).
 */
const testApp = setUpTestApp();
const dash = setUpDashboardSockets(testApp);
const request = testApp.request;

async function dashboardOfOwner() {
  const owner = await signUp(request);
  await buildButtonTextDashboard(request, owner.accessToken);
  const me = await request("GET", "/auth/profile", { token: owner.accessToken });
  return { owner, slug: me.body.organization.slug as string };
}

describe("a dashboard viewer whose access ends", () => {
  it("a removed member's socket closes at once (4404); another member's stays", async () => {
    const { owner, slug } = await dashboardOfOwner();
    const removed = await joinAs(testApp.app, request, owner, "viewer");
    const kept = await joinAs(testApp.app, request, owner, "viewer");
    const gone = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, removed));
    const stays = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, kept));
    await gone.next((f) => f.type === "dashboard.page");
    await stays.next((f) => f.type === "dashboard.page");
    const started = Date.now();
    expect((await request("DELETE", `/organizations/${owner.organizationId}/members/${removed.userId}`, { token: owner.accessToken })).status).toBe(204);
    expect((await gone.closed).code).toBe(DASHBOARD_CLOSE.notFound);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stays.ws.readyState).toBe(stays.ws.OPEN);
    stays.ws.close();
  });

  it("a signed-out session's socket closes at once (4401)", async () => {
    const { owner, slug } = await dashboardOfOwner();
    const socket = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
    await socket.next((f) => f.type === "dashboard.page");
    const started = Date.now();
    expect((await request("POST", "/auth/logout", { token: owner.accessToken })).status).toBe(204);
    expect((await socket.closed).code).toBe(DASHBOARD_CLOSE.unauthenticated);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
