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
    // That viewer is shown its own _client (Dashboard 2.0's templates may show it); it is never kept.
    // With the viewer as FlowFuse's user add-on for Dashboard 2.0 names them (msg._client.user).
    expect(update.msg._client).toEqual({
      socketId: page.socket_id,
      user_id: viewer.userId,
      // Without an avatar of their own, their initials (FlowFuse gives every user an image).
      user: { userId: viewer.userId, username: viewer.email, email: viewer.email, name: "Ada Lovelace", image: expect.stringMatching(/^data:image\/svg\+xml,.*%3EAL%3C%2Ftext%3E/) },
    });
    expect(JSON.stringify(update.state ?? null)).not.toContain(page.socket_id);
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

  it("share links: view-only sees the page and cannot input; interactive can; revoking closes their sockets within 2 s; admins only", async () => {
    const owner = await signUp(request);
    const d = await buildButtonTextDashboard(request, owner.accessToken, { prefix: "sh" });
    const slug = await orgSlug(owner.accessToken);
    const member = await joinAs(testApp.app, request, owner, "member");
    expect((await request("POST", "/dashboards/share-links", { token: member.token, body: { page_id: d.page } })).status).toBe(403);
    expect((await request("POST", "/dashboards/share-links", { token: owner.accessToken, body: { page_id: "nope" } })).status).toBe(404);
    const viewOnly = await request("POST", "/dashboards/share-links", { token: owner.accessToken, body: { page_id: d.page } });
    expect(viewOnly.status, viewOnly.text).toBe(201);
    expect(viewOnly.body.share_link).toMatchObject({ page_id: d.page, page_path: "/home", interactive: false, revoked_at: null });
    expect(viewOnly.body.share_link.url).toBe(`http://app.test/dashboard/${slug}/home?share=${encodeURIComponent(viewOnly.body.share_link.token)}`);
    const interactive = await request("POST", "/dashboards/share-links", { token: owner.accessToken, body: { page_id: d.page, interactive: true } });
    const listed = await request("GET", "/dashboards/share-links", { token: owner.accessToken });
    expect(listed.body.share_links.map((l: { id: string }) => l.id).sort()).toEqual([viewOnly.body.share_link.id, interactive.body.share_link.id].sort());
    // The token is never listed again.
    expect(JSON.stringify(listed.body)).not.toContain(viewOnly.body.share_link.token);

    const visitor = connect(dash.url(slug, "/home", viewOnly.body.share_link.token));
    const page = await visitor.next((f) => f.type === "dashboard.page");
    expect(page.view).toMatchObject({ interactive: false, page: { path: "/home" } });
    expect(page.view.pages).toHaveLength(1);
    visitor.send({ type: "dashboard.input", widget_id: d.button, event: "click", msg: {} });
    expect(await visitor.next((f) => f.type === "dashboard.error")).toMatchObject({ code: "FORBIDDEN" });
    // The share link opens its own page only.
    expect((await connect(dash.url(slug, "/elsewhere", viewOnly.body.share_link.token)).closed).code).toBe(DASHBOARD_CLOSE.notFound);

    const guest = connect(dash.url(slug, "/home", interactive.body.share_link.token));
    expect((await guest.next((f) => f.type === "dashboard.page")).view.interactive).toBe(true);
    guest.send({ type: "dashboard.input", widget_id: d.button, event: "click", msg: {} });
    expect((await guest.next((f) => f.type === "dashboard.update" && f.widget_id === d.text)).msg.payload).toBe("pressed: button by a viewer");
    // The view-only visitor sees what everyone sees, not the guest's private answer.
    await visitor.next((f) => f.type === "dashboard.update" && f.widget_id === d.all);
    expect(visitor.frames.some((f) => f.widget_id === d.text)).toBe(false);

    const started = Date.now();
    expect((await request("DELETE", `/dashboards/share-links/${viewOnly.body.share_link.id}`, { token: owner.accessToken })).status).toBe(204);
    expect((await visitor.closed).code).toBe(DASHBOARD_CLOSE.shareRevoked);
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await connect(dash.url(slug, "/home", viewOnly.body.share_link.token)).closed).code).toBe(DASHBOARD_CLOSE.notFound);
    expect(guest.ws.readyState).toBe(guest.ws.OPEN);
    guest.ws.close();
  });

  it("page paths are unique in the organization: a second page on a taken path is refused with 409, nothing written", async () => {
    const owner = await signUp(request);
    const d = await buildButtonTextDashboard(request, owner.accessToken, { prefix: "pp" });
    const clash = await request("POST", "/config-nodes", { token: owner.accessToken, body: { type: "ui-page", name: "Other", config: { ui: d.base, path: "/home" } } });
    expect(clash.status, clash.text).toBe(409);
    expect(clash.body.error.code).toBe("DASHBOARD_PATH_TAKEN");
    const other = await request("POST", "/config-nodes", { token: owner.accessToken, body: { type: "ui-page", name: "Other", config: { ui: d.base, path: "/other" } } });
    expect(other.status).toBe(201);
    const moved = await request("PUT", `/config-nodes/${other.body.config_node.id}`, { token: owner.accessToken, body: { config: { ui: d.base, path: "/home" } } });
    expect(moved.status).toBe(409);
    expect((await request("GET", `/config-nodes/${other.body.config_node.id}`, { token: owner.accessToken })).body.config_node).toMatchObject({ revision: 1, config: { path: "/other" } });
    // Another organization may use the same path.
    const stranger = await signUp(request);
    const base = await request("POST", "/config-nodes", { token: stranger.accessToken, body: { type: "ui-base", name: "Mine", config: {} } });
    expect((await request("POST", "/config-nodes", { token: stranger.accessToken, body: { type: "ui-page", name: "Home", config: { ui: base.body.config_node.id, path: "/home" } } })).status).toBe(201);
  });

  it("bad frames get a dashboard.error and change nothing; inputs are rate-limited", async () => {
    const owner = await signUp(request);
    const d = await buildButtonTextDashboard(request, owner.accessToken, { prefix: "bad" });
    const slug = await orgSlug(owner.accessToken);
    const socket = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
    await socket.next((f) => f.type === "dashboard.page");
    socket.send("{not json");
    expect(await socket.next((f) => f.type === "dashboard.error")).toMatchObject({ code: "INVALID_JSON" });
    socket.send({ type: "dashboard.input", widget_id: d.button, msg: "nope" });
    expect(await socket.next((f) => f.type === "dashboard.error" && f.code === "VALIDATION_FAILED")).toBeDefined();
    socket.send({ type: "dashboard.input", widget_id: "someone_elses", event: "click", msg: {} });
    expect(await socket.next((f) => f.type === "dashboard.error" && f.code === "NOT_FOUND")).toBeDefined();
    for (let i = 0; i < 80; i++) socket.send({ type: "dashboard.input", widget_id: d.button, event: "click", msg: {} });
    expect(await socket.next((f) => f.type === "dashboard.error" && f.code === "RATE_LIMITED")).toBeDefined();
    socket.ws.close();
  });

  it("tenant isolation: another organization's member never opens, sees or drives this organization's page", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const da = await buildButtonTextDashboard(request, a.accessToken, { prefix: "ta" });
    const db = await buildButtonTextDashboard(request, b.accessToken, { prefix: "tb" });
    const slugA = await orgSlug(a.accessToken);
    const slugB = await orgSlug(b.accessToken);
    expect((await connect(dash.url(slugA, "/home"), await sessionCookie(testApp.app, b)).closed).code).toBe(DASHBOARD_CLOSE.notFound);
    // B's share token does not open A's page of the same path.
    const shareB = await request("POST", "/dashboards/share-links", { token: b.accessToken, body: { page_id: db.page, interactive: true } });
    expect((await connect(dash.url(slugA, "/home", shareB.body.share_link.token)).closed).code).toBe(DASHBOARD_CLOSE.notFound);
    // A's viewer gets nothing of B's widgets, and cannot name them.
    const viewerA = connect(dash.url(slugA, "/home"), await sessionCookie(testApp.app, a));
    await viewerA.next((f) => f.type === "dashboard.page");
    const viewerB = connect(dash.url(slugB, "/home"), await sessionCookie(testApp.app, b));
    await viewerB.next((f) => f.type === "dashboard.page");
    viewerB.send({ type: "dashboard.input", widget_id: db.button, event: "click", msg: {} });
    await viewerB.next((f) => f.type === "dashboard.update" && f.widget_id === db.all);
    viewerA.send({ type: "dashboard.input", widget_id: db.button, event: "click", msg: {} });
    expect(await viewerA.next((f) => f.type === "dashboard.error")).toMatchObject({ code: "NOT_FOUND" });
    await new Promise((r) => setTimeout(r, 200));
    expect(viewerA.frames.filter((f) => f.type === "dashboard.update")).toEqual([]);
    expect(da.page).not.toBe(db.page);
    // B's admin cannot list or revoke A's share links.
    const shareA = await request("POST", "/dashboards/share-links", { token: a.accessToken, body: { page_id: da.page } });
    expect((await request("DELETE", `/dashboards/share-links/${shareA.body.share_link.id}`, { token: b.accessToken })).status).toBe(404);
    expect((await request("GET", "/dashboards/share-links", { token: b.accessToken })).body.share_links.map((l: { id: string }) => l.id)).toEqual([shareB.body.share_link.id]);
    viewerA.ws.close();
    viewerB.ws.close();
  });

  it("a redeploy that changes the page sends dashboard.page again; dashboards.page and dashboards.list answer as the socket does", async () => {
    const owner = await signUp(request);
    const d = await buildButtonTextDashboard(request, owner.accessToken, { prefix: "re" });
    const slug = await orgSlug(owner.accessToken);
    const socket = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
    await socket.next((f) => f.type === "dashboard.page");
    const flow = (await request("GET", `/flows/${d.flowId}`, { token: owner.accessToken })).body.flow;
    const nodes = flow.nodes.map((n: { id: string; config: Record<string, unknown> }) => (n.id === d.button ? { ...n, config: { ...n.config, label: "Press me" } } : n));
    const saved = await request("PUT", `/flows/${d.flowId}`, { token: owner.accessToken, body: { nodes, revision: flow.revision } });
    expect(saved.status, saved.text).toBe(200);
    expect((await request("POST", `/flows/${d.flowId}/deploy`, { token: owner.accessToken })).status).toBe(200);
    const again = await socket.next((f) => f.type === "dashboard.page" && f.view.groups[0].widgets[0].props.label === "Press me");
    expect(again.socket_id).toBe(socket.frames[0]!.socket_id);

    const { testCaller } = await import("@/test/app");
    const asOwner = testCaller(testApp.app, { credentials: { authorization: `Bearer ${owner.accessToken}` } });
    const view = await asOwner.dashboards.page({ org_slug: slug, path: "/home" });
    expect(view.groups[0]!.widgets[0]!.props.label).toBe("Press me");
    const anonymous = testCaller(testApp.app, {});
    await expect(anonymous.dashboards.page({ org_slug: slug, path: "/home" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const stranger = await signUp(request);
    await expect(testCaller(testApp.app, { credentials: { authorization: `Bearer ${stranger.accessToken}` } }).dashboards.page({ org_slug: slug, path: "/home" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // An API key sees the page with flows:read (as dashboards.list), not with another scope only.
    const keyWith = async (scopes: string[]) => (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: scopes.join(" "), scopes } })).body.secret as string;
    const reader = testCaller(testApp.app, { credentials: { apiKey: await keyWith(["flows:read"]) } });
    expect((await reader.dashboards.page({ org_slug: slug, path: "/home" })).groups[0]!.widgets[0]!.props.label).toBe("Press me");
    const mqttOnly = testCaller(testApp.app, { credentials: { apiKey: await keyWith(["mqtt:subscribe"]) } });
    await expect(mqttOnly.dashboards.page({ org_slug: slug, path: "/home" })).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("flows:read") });
    const list = await request("GET", "/dashboards/pages", { token: owner.accessToken });
    expect(list.body.pages).toEqual([expect.objectContaining({ id: d.page, path: "/home", url: `http://app.test/dashboard/${slug}/home`, ui: { id: d.base, name: "Plant" }, groups: [expect.objectContaining({ id: d.group, name: "Controls" })] })]);
    // Disabling the flow takes its widgets off the page.
    expect((await request("PUT", `/flows/${d.flowId}`, { token: owner.accessToken, body: { enabled: false, revision: saved.body.flow.revision } })).status).toBe(200);
    expect(await socket.closed).toMatchObject({ code: DASHBOARD_CLOSE.notFound });
  });

  it("a viewer's own message follows their tab to its next page (as on Dashboard 2.0's one socket per tab); no other viewer or tab sees it", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const post = async (body: Record<string, unknown>) => (await request("POST", "/config-nodes", { token, body })).body.config_node.id as string;
    const base = await post({ type: "ui-base", name: "Audit", config: {} });
    const home = await post({ type: "ui-page", name: "Home", config: { ui: base, path: "/start", order: 1 } });
    const audit = await post({ type: "ui-page", name: "Audit", config: { ui: base, path: "/audit", order: 2 } });
    const g1 = await post({ type: "ui-group", name: "Start", config: { page: home, width: 6, order: 1 } });
    const g2 = await post({ type: "ui-group", name: "Question", config: { page: audit, width: 6, order: 1 } });
    // "New audit" on the first page fills the question on the second and goes there (ui-control).
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "audit",
        nodes: [
          { id: "tab_btn", type: "ui-button", position: { x: 0, y: 0 }, config: { group: g1, label: "New audit", payload: "Question 1", payloadType: "str", order: 1 } },
          { id: "tab_q", type: "ui-text", position: { x: 200, y: 0 }, config: { group: g2, label: "Question", order: 1 } },
        ],
        connections: [{ source: "tab_btn", target: "tab_q" }],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token })).status).toBe(200);
    const slug = await orgSlug(token);
    const mine = await sessionCookie(testApp.app, owner);
    const tab = "0123456789abcdef0123";
    const otherTab = "fedcba9876543210fedc";
    const onPage = (path: string, t: string, headers = mine) => connect(`${dash.url(slug, path)}&tab=${t}`, headers);
    const stateOf = (page: Record<string, any>) => (page.view.groups[0].widgets as Array<{ id: string; state: unknown }>).find((w) => w.id === "tab_q")!.state;

    // The tab's page 1 clicks; its page 2, already open in the same tab (the page changed meanwhile), gets the answer live.
    const first = onPage("/start", tab);
    await first.next((f) => f.type === "dashboard.page");
    const second = onPage("/audit", tab);
    expect(stateOf(await second.next((f) => f.type === "dashboard.page"))).toBeNull();
    const stranger = await joinAs(testApp.app, request, owner, "viewer");
    const othersPage = onPage("/audit", otherTab, await sessionCookie(testApp.app, stranger));
    await othersPage.next((f) => f.type === "dashboard.page");
    const sameUserOtherTab = onPage("/audit", otherTab);
    await sameUserOtherTab.next((f) => f.type === "dashboard.page");
    first.send({ type: "dashboard.input", widget_id: "tab_btn", event: "click", msg: {} });
    expect((await second.next((f) => f.type === "dashboard.update" && f.widget_id === "tab_q")).msg.payload).toBe("Question 1");
    first.ws.close();
    second.ws.close();

    // The tab's next page opened later shows it too; another viewer, another tab of the same viewer and a made-up tab never do.
    const again = onPage("/audit", tab);
    expect(stateOf(await again.next((f) => f.type === "dashboard.page"))).toMatchObject({ msg: { payload: "Question 1" } });
    for (const [headers, t] of [[await sessionCookie(testApp.app, stranger), tab], [mine, otherTab], [mine, "not-a-tab"]] as const) {
      const s = connect(`${dash.url(slug, "/audit")}&tab=${t}`, headers);
      expect(stateOf(await s.next((f) => f.type === "dashboard.page"))).toBeNull();
      s.ws.close();
    }
    expect([...othersPage.frames, ...sameUserOtherTab.frames].some((f) => f.type === "dashboard.update")).toBe(false);
    for (const s of [again, othersPage, sameUserOtherTab]) s.ws.close();
  });

  it("a table a viewer fills (append) keeps each of their rows on their tab's pages, in order; flows read who they are from msg._client.user; others see none", async () => {
    // FlowFuse's Getting Started and Multi-user blueprints: a form adds a row per submit, with the
    // signed-in user's name or email taken from msg._client.user (its user add-on's object).
    const owner = await signUp(request);
    const token = owner.accessToken;
    const post = async (body: Record<string, unknown>) => (await request("POST", "/config-nodes", { token, body })).body.config_node.id as string;
    const base = await post({ type: "ui-base", name: "Stock", config: {} });
    const entry = await post({ type: "ui-page", name: "Entry", config: { ui: base, path: "/entry", order: 1 } });
    const g = await post({ type: "ui-group", name: "Products", config: { page: entry, width: 6, order: 1 } });
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "stock",
        nodes: [
          { id: "row_btn", type: "ui-button", position: { x: 0, y: 0 }, config: { group: g, label: "Add", payload: "", payloadType: "str", order: 1 } },
          { id: "row_fn", type: "function", position: { x: 200, y: 0 }, config: { code: "const n = (context.get('n') || 0) + 1; context.set('n', n); msg.payload = { n, by: msg._client.user.name, email: msg._client.user.email }; return msg;" } },
          {
            id: "row_table",
            type: "ui-table",
            position: { x: 400, y: 0 },
            config: {
              group: g,
              order: 2,
              action: "append",
              autocols: false,
              columns: [
                { key: "n", title: "N", type: "text" },
                { key: "by", title: "By", type: "text" },
                { key: "email", title: "Email", type: "text" },
                { key: "restock", title: "", keyType: "str", type: "button" },
              ],
            },
          },
          // A button column's click comes out of the table (Dashboard 2.0's widget-action).
          { id: "row_click", type: "function", position: { x: 600, y: 0 }, config: { code: "msg.payload = msg.action + ':' + msg.column + ':' + msg.payload.n; return msg;" } },
          { id: "row_said", type: "ui-text", position: { x: 800, y: 0 }, config: { group: g, order: 3, label: "Clicked" } },
        ],
        connections: [
          { source: "row_btn", target: "row_fn" },
          { source: "row_fn", target: "row_table" },
          { source: "row_table", target: "row_click" },
          { source: "row_click", target: "row_said" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token })).status).toBe(200);
    const slug = await orgSlug(token);
    const mine = await sessionCookie(testApp.app, owner);
    const tab = "aaaaaaaaaaaaaaaa0001";
    const tableOf = (page: Record<string, any>) => (page.view.groups[0].widgets as Array<{ id: string; state: unknown }>).find((w) => w.id === "row_table")!.state as { rows?: unknown[] } | null;
    const socket = connect(`${dash.url(slug, "/entry")}&tab=${tab}`, mine);
    await socket.next((f) => f.type === "dashboard.page");
    const who = { by: "Ada Lovelace", email: owner.email };
    for (const n of [1, 2]) {
      socket.send({ type: "dashboard.input", widget_id: "row_btn", event: "click", msg: {} });
      // Live, each message carries its row; the page adds it to those shown (widget-state.ts).
      expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "row_table" && f.msg.payload?.n === n)).msg.payload).toEqual({ n, ...who });
    }
    // A click on a row's button sends the row with its column; a column that is no button sends nothing.
    socket.send({ type: "dashboard.input", widget_id: "row_table", event: "button_click", msg: { payload: { n: 7 }, column: "by" } });
    socket.send({ type: "dashboard.input", widget_id: "row_table", event: "button_click", msg: { payload: { n: 2 }, column: "restock" } });
    expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "row_said")).msg.payload).toBe("button_click:restock:2");
    expect(socket.frames.filter((f) => f.type === "dashboard.update" && f.widget_id === "row_said")).toHaveLength(1);
    socket.ws.close();
    // The tab's page opened again shows both rows, in order (not the shared rows and the last one).
    await expect
      .poll(async () => {
        const again = connect(`${dash.url(slug, "/entry")}&tab=${tab}`, mine);
        const rows = tableOf(await again.next((f) => f.type === "dashboard.page"))?.rows;
        again.ws.close();
        return rows;
      })
      .toEqual([
        { n: 1, ...who },
        { n: 2, ...who },
      ]);
    // Another viewer sees the table without them.
    const stranger = await joinAs(testApp.app, request, owner, "viewer");
    const theirs = connect(dash.url(slug, "/entry"), await sessionCookie(testApp.app, stranger));
    expect(tableOf(await theirs.next((f) => f.type === "dashboard.page"))?.rows ?? []).toEqual([]);
    theirs.ws.close();
  });
  it("ui-event reports the page as Dashboard 2.0's (its name, path and properties), the URL's query and the viewer (msg._client.user); a bad query is refused", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const post = async (body: Record<string, unknown>) => (await request("POST", "/config-nodes", { token, body })).body.config_node.id as string;
    const base = await post({ type: "ui-base", name: "Plant", config: {} });
    const admin = await post({ type: "ui-page", name: "Admin View", config: { ui: base, path: "/admin", icon: "security", layout: "flex", order: 2 } });
    const g = await post({ type: "ui-group", name: "Events", config: { page: admin, width: 6, order: 1 } });
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "events",
        nodes: [
          { id: "ev_event", type: "ui-event", position: { x: 0, y: 0 }, config: { ui: base } },
          {
            id: "ev_fn",
            type: "function",
            position: { x: 200, y: 0 },
            config: { code: "const p = msg.payload.page; msg.payload = [msg.topic, p.name, p.path, p.layout, p.icon, p.type, msg.payload.query.machine, msg._client.user.name].join('|'); return msg;" },
          },
          { id: "ev_text", type: "ui-text", position: { x: 400, y: 0 }, config: { group: g, label: "Seen", order: 1 } },
        ],
        connections: [
          { source: "ev_event", target: "ev_fn" },
          { source: "ev_fn", target: "ev_text" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token })).status).toBe(200);
    const slug = await orgSlug(token);
    const socket = connect(dash.url(slug, "/admin"), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    socket.send({ type: "dashboard.event", event: "$pageview", page_id: page.view.page.id, query: { machine: "3" } });
    const seen = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "ev_text");
    expect(seen.msg.payload).toBe("$pageview|Admin View|/admin|flex|security|ui-page|3|Ada Lovelace");
    // A query past its bounds is refused with the error frame, and sends nothing.
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
    socket.send({ type: "dashboard.event", event: "$pageview", page_id: page.view.page.id, query: many });
    expect((await socket.next((f) => f.type === "dashboard.error")).code).toBe("VALIDATION_FAILED");
    socket.ws.close();
  });

  it("a viewer folding a group that can be collapsed reaches ui-control as Dashboard 1's group event (not ui-event); a group that cannot, another page's or a bad frame is refused and sends nothing", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const post = async (body: Record<string, unknown>) => (await request("POST", "/config-nodes", { token, body })).body.config_node.id as string;
    const base = await post({ type: "ui-base", name: "Plant", config: {} });
    const room = await post({ type: "ui-page", name: "Plant room", config: { ui: base, path: "/plant", order: 1 } });
    const pump = await post({ type: "ui-group", name: "Heat pump", config: { page: room, width: 6, order: 1, collapse: true } });
    const plain = await post({ type: "ui-group", name: "Events", config: { page: room, width: 6, order: 2 } });
    // Collapsing needs the title shown (its button is in the title), as in Dashboard 1.
    const untitled = await post({ type: "ui-group", name: "Hidden title", config: { page: room, width: 6, order: 3, collapse: true, showTitle: false } });
    const code = "msg.payload = [msg.topic || '', msg.payload, msg.group, msg.open, typeof msg._client.socketId].join('|'); return msg;";
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "folds",
        nodes: [
          // Dashboard 1's ui_control sends group events with Output "change" (and "all"), not "connect".
          { id: "fo_control", type: "ui-control", position: { x: 0, y: 0 }, config: { ui: base, events: "change" } },
          { id: "fo_connects", type: "ui-control", position: { x: 0, y: 200 }, config: { ui: base, events: "connect" } },
          { id: "fo_event", type: "ui-event", position: { x: 0, y: 100 }, config: { ui: base } },
          { id: "fo_fn", type: "function", position: { x: 200, y: 0 }, config: { code } },
          { id: "fo_text", type: "ui-text", position: { x: 400, y: 0 }, config: { group: plain, label: "Folds", order: 1 } },
          { id: "fo_ev_text", type: "ui-text", position: { x: 400, y: 100 }, config: { group: pump, label: "Events", order: 1 } },
          { id: "fo_untitled", type: "ui-text", position: { x: 400, y: 200 }, config: { group: untitled, label: "Untitled", order: 1 } },
        ],
        connections: [
          { source: "fo_control", target: "fo_fn" },
          { source: "fo_connects", target: "fo_fn" },
          { source: "fo_fn", target: "fo_text" },
          { source: "fo_event", target: "fo_ev_text" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token })).status).toBe(200);
    const slug = await orgSlug(token);
    const socket = connect(dash.url(slug, "/plant"), await sessionCookie(testApp.app, owner));
    const page = await socket.next((f) => f.type === "dashboard.page");
    expect(page.view.groups.map((g: { name: string; collapse: boolean }) => [g.name, g.collapse])).toEqual([
      ["Heat pump", true],
      ["Events", false],
      ["Hidden title", false],
    ]);
    socket.send({ type: "dashboard.group", page_id: page.view.page.id, group_id: pump, open: false });
    const told = await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "fo_text");
    expect(told.msg.payload).toBe("|group|Plant_room_Heat_pump|false|string");
    // Refused: a group that cannot be collapsed, one without its title, an unknown one, another page's id, a frame without `open`.
    for (const frame of [
      { type: "dashboard.group", page_id: page.view.page.id, group_id: plain, open: true },
      { type: "dashboard.group", page_id: page.view.page.id, group_id: untitled, open: true },
      { type: "dashboard.group", page_id: page.view.page.id, group_id: "nope", open: true },
      { type: "dashboard.group", page_id: "other", group_id: pump, open: true },
    ]) {
      const errors = () => socket.frames.filter((f) => f.type === "dashboard.error");
      const before = errors().length;
      socket.send(frame);
      await socket.next(() => errors().length > before);
      expect(errors().at(-1)!.code).toBe("NOT_FOUND");
    }
    socket.send({ type: "dashboard.group", page_id: page.view.page.id, group_id: pump });
    expect((await socket.next((f) => f.type === "dashboard.error" && f.code === "VALIDATION_FAILED")).message).toMatch(/^open:/);
    // Nor can a viewer make one up (or a page view) as a widget's input to the ui-control node.
    for (const event of ["$group", "$pageview"]) {
      const errors = () => socket.frames.filter((f) => f.type === "dashboard.error");
      const before = errors().length;
      socket.send({ type: "dashboard.input", widget_id: "fo_control", event, msg: { payload: { group: "Forged", open: true } } });
      await socket.next(() => errors().length > before);
      expect(errors().at(-1)).toMatchObject({ code: "VALIDATION_FAILED", message: "event: a widget's event does not start with $" });
    }
    socket.send({ type: "dashboard.group", page_id: page.view.page.id, group_id: pump, open: true });
    expect((await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "fo_text" && f !== told)).msg.payload).toBe("|group|Plant_room_Heat_pump|true|string");
    // Only the two accepted frames reached the flow, once each (not through the "connect" control); ui-event heard none of them.
    await new Promise((r) => setTimeout(r, 200));
    expect(socket.frames.filter((f) => f.type === "dashboard.update" && f.widget_id === "fo_text").map((f) => f.msg.payload)).toEqual(["|group|Plant_room_Heat_pump|false|string", "|group|Plant_room_Heat_pump|true|string"]);
    expect(socket.frames.filter((f) => f.type === "dashboard.update" && f.widget_id === "fo_ev_text")).toEqual([]);
    socket.ws.close();
  });

  it("an update published while a viewer's page is being built comes after the page, never before it (where the page would undo it)", async () => {
    const owner = await signUp(request);
    const d = await buildButtonTextDashboard(request, owner.accessToken, { prefix: "held" });
    const slug = await orgSlug(owner.accessToken);
    const states = testApp.app.dashboards.states;
    const read = states.read.bind(states);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reading!: () => void;
    const pageReading = new Promise<void>((r) => (reading = r));
    // The page's states are read from before the update: the read waits until the update is out.
    states.read = async (organizationId, widgetIds) => {
      const answer = await read(organizationId, widgetIds);
      reading();
      await gate;
      return answer;
    };
    try {
      const socket = connect(dash.url(slug, "/home"), await sessionCookie(testApp.app, owner));
      await pageReading;
      testApp.app.dashboards.emit(owner.organizationId, d.all, { payload: "while building" }, { state: { msg: { payload: "while building" } } });
      // The subscription delivers it (in process or through Redis) while the page waits.
      await new Promise((r) => setTimeout(r, 200));
      expect(socket.frames.filter((f) => f.type === "dashboard.update")).toEqual([]);
      release();
      await socket.next((f) => f.type === "dashboard.update" && f.widget_id === d.all);
      expect(socket.frames.map((f) => f.type)).toEqual(["dashboard.page", "dashboard.update"]);
      const built = socket.frames[0]!.view.groups[0].widgets.find((w: { id: string }) => w.id === d.all);
      expect(built.state).toBeNull();
      // A replay: the browser takes its state (the page may hold it already), rather than applying it again.
      expect(socket.frames[1]).toMatchObject({ replay: true, msg: { payload: "while building" }, state: { msg: { payload: "while building" } } });
      socket.ws.close();
    } finally {
      states.read = read;
      release();
    }
  });
});
