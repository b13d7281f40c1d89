import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect } from "@/test/ws";
import { joinAs, signUp } from "@/test/accounts";
import { buildButtonTextDashboard, sessionCookie, setUpDashboardSockets } from "@/test/dashboard";
import { DASHBOARD_CLOSE } from "@/shared/dashboard";

/**
 * SPEC §21 through the door a browser uses: the dashboard socket with the session cookie or a
 * share link's token, a real `ws` client, a flow built and deployed over REST.
 */
const testApp = setUpTestApp();
const dash = setUpDashboardSockets(testApp, { recheckMs: 500 });
const request = testApp.request;

async function orgSlug(token: string) {
  const me = await request("GET", "/auth/profile", { token });
  expect(me.status, me.text).toBe(200);
  return me.body.organization.slug as string;
}

describe("the dashboard socket", () => {
  it("a member sees the deployed page; a click goes through the flow and the answer comes back (ui-button → function → ui-text)", async () => {
    const owner = await signUp(request);
    const d = await buildButtonTextDashboard(request, owner.accessToken);
    const slug = await orgSlug(owner.accessToken);
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const socket = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, viewer));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view).toMatchObject({ title: "Plant", page: { path: "/home", name: "Home", layout: "grid" }, interactive: true, theme: { colors: { primary: "#ff8800" } } });
    expect(page.view.groups).toHaveLength(1);
    expect(page.view.groups[0].widgets.map((w: { id: string; type: string }) => [w.id, w.type])).toEqual([
      [d.button, "ui-button"],
      [d.text, "ui-text"],
      [d.all, "ui-text"],
    ]);
    const other = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
    await other.next((f) => f.type === "dashboard.page");
    socket.send({ type: "dashboard.input", widget_id: d.button, event: "click", msg: {} });
    // msg._client kept: the answer goes to the viewer who clicked, only.
    const update = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === d.text);
    expect(update.msg).toMatchObject({ payload: "pressed: button by a viewer", topic: "press" });
    expect(update.msg._client).toBeUndefined();
    // Without msg._client: every viewer, and kept.
    const everyone = await other.next((f) => f.type === "dashboard.update" && f.widget_id === d.all);
    expect(everyone.state).toMatchObject({ msg: { payload: "pressed: button by a viewer" } });
    expect(other.frames.some((f) => f.type === "dashboard.update" && f.widget_id === d.text)).toBe(false);
    // Only dashboard frames: never debug, statuses or other events.
    expect(new Set([...socket.frames, ...other.frames].map((f) => f.type))).toEqual(new Set(["dashboard.page", "dashboard.update"]));
    // The state is kept: a viewer opening the page later sees the last press (not the private answer).
    await testApp.app.dashboards.states.flush();
    const later = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
    const again = await later.next((f) => f.type === "dashboard.page");
    const byId = (id: string) => again.view.groups[0].widgets.find((w: { id: string }) => w.id === id);
    expect(byId(d.all).state).toMatchObject({ msg: { payload: "pressed: button by a viewer" } });
    expect(byId(d.text).state).toBeNull();
    for (const s of [socket, other, later]) s.ws.close();
  });

  it("anonymous: 4401; a signed-in non-member, an unknown organization or page: 4404, as missing", async () => {
    const owner = await signUp(request);
    await buildButtonTextDashboard(request, owner.accessToken, { prefix: "anon" });
    const slug = await orgSlug(owner.accessToken);
    expect((await connect(dash.url(slug, "/home")).closed).code).toBe(DASHBOARD_CLOSE.unauthenticated);
    const stranger = await signUp(request);
    const strangerHeaders = await sessionCookie(testApp.app, stranger);
    expect((await connect(dash.url(slug, "/home"), strangerHeaders).closed).code).toBe(DASHBOARD_CLOSE.notFound);
    expect((await connect(dash.url("no-such-org", "/home"), strangerHeaders).closed).code).toBe(DASHBOARD_CLOSE.notFound);
    const ownerHeaders = await sessionCookie(testApp.app, owner);
    expect((await connect(dash.url(slug, "/nope"), ownerHeaders).closed).code).toBe(DASHBOARD_CLOSE.notFound);
    // A cookie from another origin is no credential (CSRF).
    expect((await connect(dash.url(slug, "/home"), { ...ownerHeaders, origin: "https://evil.example" }).closed).code).toBe(DASHBOARD_CLOSE.unauthenticated);
    // A made-up share token: as missing.
    expect((await connect(dash.url(slug, "/home", "dsh_madeup")).closed).code).toBe(DASHBOARD_CLOSE.notFound);
  });
});
