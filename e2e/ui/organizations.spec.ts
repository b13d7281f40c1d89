import { expect, test, type Page } from "@playwright/test";
import { PASSWORD, accessToken, logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { expectAccessible, shot } from "../helpers/page";
import { linkIn, waitForMail } from "../helpers/outbox";

const region = (page: Page, name: string | RegExp) => page.getByRole("region", { name, exact: typeof name === "string" ? true : undefined });
const settingsNav = (page: Page) => page.getByRole("navigation", { name: "Settings" });
const switcher = (page: Page) => page.getByRole("banner").getByRole("button", { name: /^Organization\b/ });
/** registerViaApi names the first organization after the address. */
const orgNameOf = (email: string) => `Org of ${email.split("@")[0]}`;

async function organizationId(page: Page): Promise<string> {
  await page.goto("/settings/organization");
  const id = ((await page.getByLabel("Organization ID").textContent()) ?? "").trim();
  expect(id).toMatch(/^org_/);
  return id;
}

test.describe("organizations in the browser", () => {
  test("invite by email, accept from the mail, switch organization, and a demotion removes the controls", async ({ page, browser }) => {
    const owner = uniqueEmail("org-owner");
    const invitee = uniqueEmail("org-invitee");
    const orgName = orgNameOf(owner);
    await registerViaApi(page.request, owner);
    await registerViaApi(page.request, invitee);

    await logIn(page, owner);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/settings/organization");
    await expect(page.getByRole("heading", { level: 1, name: "Organization" })).toBeVisible();
    await expect(region(page, "Details")).toContainText("Owner");
    await expect(region(page, "Details").getByLabel("Organization name")).toHaveValue(orgName);
    await shot(page, "settings-organization", true);

    await settingsNav(page).getByRole("link", { name: "Members" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/settings/members");
    await expect(settingsNav(page).getByRole("link", { name: "Members" })).toHaveAttribute("aria-current", "page");
    const invite = region(page, "Invite a member");
    await invite.getByLabel("Email").fill(owner);
    await invite.getByRole("button", { name: "Send invitation" }).click();
    await expect(invite.getByLabel("Email")).toHaveAccessibleDescription("This person is a member already.");

    await invite.getByLabel("Email").fill(invitee);
    await invite.getByLabel("Role").selectOption("admin");
    await invite.getByRole("button", { name: "Send invitation" }).click();
    await expect(invite.getByRole("status")).toHaveText(`Invitation sent to ${invitee}.`);
    const pending = region(page, "Pending invitations");
    await expect(pending.getByRole("row").filter({ hasText: invitee })).toContainText("Admin");
    await expect(pending.getByRole("button", { name: `Revoke invitation for ${invitee}` })).toBeVisible();
    await shot(page, "settings-members-invited", true);

    // The invitee opens the mailed link signed out: log in first, then back to the invitation.
    const link = linkIn(await waitForMail(invitee, /invited you to/), "/invitations/accept");

    // Anyone else signed in cannot use it.
    await page.goto(link);
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("This invitation was sent to another email address. Sign in with that account.");
    await expect(page.getByRole("button", { name: "Log out and use another account" })).toBeVisible();
    await shot(page, "invitation-wrong-account", true);

    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto(link);
    await expect(other).toHaveURL((url) => url.pathname === "/login" && (url.searchParams.get("callbackUrl") ?? "").startsWith("/invitations/accept?token="));
    await other.getByLabel("Email").fill(invitee);
    await other.getByLabel("Password").fill(PASSWORD);
    await other.getByRole("button", { name: "Log in" }).click();
    await expect(other).toHaveURL((url) => url.pathname === "/invitations/accept" && url.searchParams.has("token"));
    await expect(other.getByRole("heading", { level: 1, name: "Join an organization" })).toBeVisible();
    await shot(other, "invitation-accept", true);
    await other.getByRole("button", { name: "Accept invitation" }).click();
    await expect(other.getByRole("main").getByRole("status")).toHaveText(`You joined ${orgName} as admin.`);
    await expect(other.getByRole("button", { name: `Switch to ${orgName}` })).toBeVisible();
    await shot(other, "invitation-accepted", true);

    // The link works once.
    const again = await context.newPage();
    await again.goto(link);
    await again.getByRole("button", { name: "Accept invitation" }).click();
    await expect(again.getByRole("main").getByRole("alert")).toContainText("This invitation is not valid");
    await again.close();

    // Switching through the header's organization menu, which lists the new organization now.
    await expect(switcher(other)).toContainText(orgNameOf(invitee));
    await switcher(other).click();
    await expect(switcher(other)).toHaveAttribute("aria-expanded", "true");
    const menuSwitch = other.getByRole("banner").getByRole("button", { name: `Switch to ${orgName}` });
    await expect(menuSwitch).toBeVisible();
    await expect(other.getByRole("banner").getByRole("link", { name: "Create organization" })).toBeVisible();
    await shot(other, "organization-switcher", true);
    await menuSwitch.click();
    // The invitation belongs to the organization left behind: the switch lands on the settings.
    await expect(other).toHaveURL((url) => url.pathname === "/settings/organization");
    await expect(switcher(other)).toContainText(orgName);
    await expect(region(other, "Details")).toContainText("Admin");

    await settingsNav(other).getByRole("link", { name: "Members" }).click();
    const theirMembers = region(other, /^All members/);
    await expect(theirMembers.getByRole("row")).toHaveCount(3); // header + 2
    await expect(theirMembers.getByRole("row").filter({ hasText: owner })).toContainText("Owner");
    // An admin manages members up to admin: themselves, not the owner.
    await expect(theirMembers.getByLabel(`Role for ${invitee}`, { exact: true })).toHaveValue("admin");
    await expect(theirMembers.getByLabel(`Role for ${owner}`, { exact: true })).toHaveCount(0);
    await expect(theirMembers.getByRole("button", { name: `Remove ${owner}` })).toHaveCount(0);
    await expect(region(other, "Invite a member")).toBeVisible();
    await shot(other, "settings-members-admin", true);

    // The owner sees the member, no pending invitation, and demotes them to viewer.
    await page.goto("/settings/members");
    const members = region(page, /^All members/);
    await expect(members.getByRole("row")).toHaveCount(3);
    await expect(region(page, "Pending invitations")).toContainText("No pending invitations.");
    // The last owner cannot step down.
    await members.getByLabel(`Role for ${owner}`, { exact: true }).selectOption("admin");
    await members.getByRole("button", { name: `Save role for ${owner}` }).click();
    await expect(members.getByRole("alert")).toHaveText(`${orgName} must keep at least one owner. Make someone else an owner first.`);
    await expect(members.getByLabel(`Role for ${owner}`, { exact: true })).toHaveAccessibleDescription(/must keep at least one owner/);
    await shot(page, "settings-members-last-owner", true);
    await members.getByLabel(`Role for ${owner}`, { exact: true }).selectOption("owner");
    await expect(members.getByRole("alert")).toHaveCount(0);

    await members.getByLabel(`Role for ${invitee}`, { exact: true }).selectOption("viewer");
    await members.getByRole("button", { name: `Save role for ${invitee}` }).click();
    await expect(members.getByRole("button", { name: `Save role for ${invitee}` })).toHaveCount(0);
    await page.reload();
    await expect(members.getByLabel(`Role for ${invitee}`, { exact: true })).toHaveValue("viewer");
    await expect(members.getByRole("button", { name: `Remove ${invitee}` })).toBeVisible();
    await shot(page, "settings-members-owner", true);

    // The demoted member's page has no controls any more.
    await other.reload();
    await expect(theirMembers.getByRole("row")).toHaveCount(3);
    await expect(theirMembers.getByRole("combobox")).toHaveCount(0);
    await expect(theirMembers.getByRole("button")).toHaveCount(0);
    await expect(theirMembers.getByRole("row").filter({ hasText: invitee })).toContainText("Viewer");
    await expect(region(other, "Invite a member")).toHaveCount(0);
    await expect(region(other, "Pending invitations")).toHaveCount(0);
    await shot(other, "settings-members-viewer", true);

    // Viewers see polite notes instead of the admin pages.
    await settingsNav(other).getByRole("link", { name: "Audit log" }).click();
    await expect(other.getByRole("main")).toContainText("Only admins and owners can see the audit log");
    await settingsNav(other).getByRole("link", { name: "API keys" }).click();
    await expect(other.getByRole("main")).toContainText("API keys are for members, admins and owners.");
    await shot(other, "settings-api-keys-viewer", true);

    // Back to their own organization through the menu; the page stays the same section.
    await switcher(other).click();
    await other.getByRole("banner").getByRole("button", { name: `Switch to ${orgNameOf(invitee)}` }).click();
    await expect(switcher(other)).toContainText(orgNameOf(invitee));
    await expect(other).toHaveURL((url) => url.pathname === "/settings/api-keys");
    await expect(region(other, "Create an API key")).toBeVisible();
    await context.close();
  });

  test("removing a member asks first: Escape and Cancel keep them, the dialog's button removes them", async ({ page }) => {
    const owner = uniqueEmail("org-remove-owner");
    const member = uniqueEmail("org-remove-member");
    const orgName = orgNameOf(owner);
    await registerViaApi(page.request, owner);
    await registerViaApi(page.request, member);
    // The member joins through the API: the invitation in the browser is another test's subject.
    const ownerToken = await accessToken(page.request, owner);
    await logIn(page, owner);
    const orgId = await organizationId(page);
    const invited = await page.request.post(`/api/v1/organizations/${orgId}/invitations`, { headers: { authorization: `Bearer ${ownerToken}` }, data: { email: member, role: "member" } });
    expect(invited.status(), await invited.text()).toBe(201);
    const token = new URLSearchParams(linkIn(await waitForMail(member, /invited you to/), "/invitations/accept").split("?")[1]).get("token");
    expect(token).toBeTruthy();
    const accepted = await page.request.post("/api/v1/invitations/accept", {
      headers: { authorization: `Bearer ${await accessToken(page.request, member)}` },
      data: { token },
    });
    expect(accepted.status(), await accepted.text()).toBe(200);

    await page.goto("/settings/members");
    const members = region(page, /^All members/);
    await expect(members.getByRole("row")).toHaveCount(3); // header + 2
    const remove = members.getByRole("button", { name: `Remove ${member}` });
    await remove.click();
    const confirmRemove = page.getByRole("dialog", { name: `Remove ${member} from ${orgName}?` });
    await expect(confirmRemove).toContainText("They lose access to the organization at once.");
    await expect(confirmRemove.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessible(page);
    await shot(page, "settings-members-remove-confirm", true);
    await page.keyboard.press("Escape");
    await expect(confirmRemove).toBeHidden();
    await expect(remove).toBeFocused();
    await remove.click();
    await confirmRemove.getByRole("button", { name: "Cancel" }).click();
    await expect(confirmRemove).toBeHidden();
    await expect(members.getByRole("row")).toHaveCount(3);

    await remove.click();
    await confirmRemove.getByRole("button", { name: "Remove member" }).click();
    await expect(members.getByRole("row")).toHaveCount(2);
    await page.reload();
    await expect(members.getByRole("row")).toHaveCount(2);
    await expect(members).not.toContainText(member);
  });

  test("API keys: create with scopes, the secret shown once works on the API, revoking it stops it", async ({ page, context, baseURL }) => {
    // Two accessibility scans (the secret panel, the confirm dialog) on top of the walk through.
    test.slow();
    const owner = uniqueEmail("org-keys");
    await registerViaApi(page.request, owner);
    await logIn(page, owner);
    const orgId = await organizationId(page);

    await settingsNav(page).getByRole("link", { name: "API keys" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    const create = region(page, "Create an API key");
    await expect(create.getByLabel("User key")).toBeChecked();
    // A device key carries device:connect and the built-in broker's MQTT scopes (SPEC §20).
    await create.getByLabel("Device key").check();
    const deviceScopes = create.getByRole("group", { name: "Scopes" }).getByRole("checkbox");
    await expect(deviceScopes).toHaveCount(3);
    const labelOf = (box: import("@playwright/test").Locator) => box.evaluate((el) => ((el as HTMLInputElement).labels?.[0]?.textContent ?? "").trim());
    expect(await Promise.all((await deviceScopes.all()).map(labelOf))).toEqual(["device:connect", "mqtt:publish", "mqtt:subscribe"]);
    await create.getByLabel("User key").check();
    const scopes = create.getByRole("group", { name: "Scopes" }).getByRole("checkbox");
    // An owner's user key: every scope but device:connect (files and MQTT included, SPEC §20, §23).
    await expect(scopes).toHaveCount(11);
    await create.getByLabel("Name").fill("CI reader");
    for (const box of await scopes.all()) {
      const label = ((await box.evaluate((el) => (el as HTMLInputElement).labels?.[0]?.textContent)) ?? "").trim();
      await box.setChecked(label === "flows:read" || label === "org:read");
    }
    await shot(page, "settings-api-keys-create", true);
    await create.getByRole("button", { name: "Create key" }).click();

    const secretElement = create.getByLabel("Secret", { exact: true });
    await expect(secretElement).toBeVisible();
    const secret = ((await secretElement.textContent()) ?? "").trim();
    expect(secret).toMatch(/^service_[A-Za-z0-9_-]{43}$/);
    await expect(create.getByText("Copy this secret now.")).toBeVisible();
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await create.getByRole("button", { name: "Copy", exact: true }).click();
    await expect(create.getByRole("status").filter({ hasText: "Copied." })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const keys = region(page, "Active keys");
    const row = keys.getByRole("row").filter({ hasText: "CI reader" });
    await expect(row).toContainText(secret.slice(0, 12));
    await expect(row).toContainText("flows:read");
    await expect(row).toContainText("org:read");
    await expect(row).not.toContainText("flows:write");
    await expect(row).toContainText("Never");
    await expectAccessible(page);
    await shot(page, "settings-api-keys-secret", true);

    const org = await fetch(`${baseURL}/api/v1/organizations/${orgId}`, { headers: { "X-API-Key": secret } });
    expect(org.status).toBe(200);
    expect(((await org.json()) as { organization: { id: string } }).organization.id).toBe(orgId);
    const audit = await fetch(`${baseURL}/api/v1/audit-log`, { headers: { "X-API-Key": secret } });
    expect(audit.status).toBe(403);

    // Shown once: gone after "stored", and after a reload.
    await create.getByRole("button", { name: "I have stored the secret" }).click();
    await expect(create.getByLabel("Secret", { exact: true })).toHaveCount(0);
    await page.reload();
    await expect(page.getByText(secret)).toHaveCount(0);
    await expect(row).toBeVisible();

    // Revoking asks first, in a dialog that starts on Cancel.
    await keys.getByRole("button", { name: "Revoke key CI reader" }).click();
    const confirmRevoke = page.getByRole("dialog", { name: "Revoke the key “CI reader”?" });
    await expect(confirmRevoke).toContainText("Anything using it stops working at once.");
    await expect(confirmRevoke.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessible(page);
    await shot(page, "settings-api-keys-revoke-confirm", true);
    await confirmRevoke.getByRole("button", { name: "Cancel" }).click();
    await expect(confirmRevoke).toBeHidden();
    await expect(row).toBeVisible();
    await keys.getByRole("button", { name: "Revoke key CI reader" }).click();
    await confirmRevoke.getByRole("button", { name: "Revoke key" }).click();
    await expect(row).toHaveCount(0);
    await expect(keys).toContainText("No API keys yet.");
    const revoked = await fetch(`${baseURL}/api/v1/organizations/${orgId}`, { headers: { "X-API-Key": secret } });
    expect(revoked.status).toBe(401);
  });

  test("audit log: the owner sees invitation and key events, filters them and loads more", async ({ page }) => {
    const owner = uniqueEmail("org-audit");
    const invitee = uniqueEmail("org-audit-invitee");
    await registerViaApi(page.request, owner);
    await logIn(page, owner);

    await page.goto("/settings/members");
    const invite = region(page, "Invite a member");
    await invite.getByLabel("Email").fill(invitee);
    await invite.getByRole("button", { name: "Send invitation" }).click();
    await expect(invite.getByRole("status")).toHaveText(`Invitation sent to ${invitee}.`);
    await region(page, "Pending invitations").getByRole("button", { name: `Revoke invitation for ${invitee}` }).click();
    await expect(region(page, "Pending invitations")).toContainText("No pending invitations.");

    await page.goto("/settings/api-keys");
    const create = region(page, "Create an API key");
    await create.getByLabel("Name").fill("Audit probe");
    await create.getByRole("button", { name: "Create key" }).click();
    await expect(create.getByLabel("Secret", { exact: true })).toBeVisible();
    await region(page, "Active keys").getByRole("button", { name: "Revoke key Audit probe" }).click();
    await page.getByRole("dialog", { name: "Revoke the key “Audit probe”?" }).getByRole("button", { name: "Revoke key" }).click();
    await expect(region(page, "Active keys")).toContainText("No API keys yet.");

    await settingsNav(page).getByRole("link", { name: "Audit log" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    const events = region(page, "Events");
    const rowOf = (action: string) => events.getByRole("row").filter({ hasText: action });
    await expect(rowOf("member.invited")).toHaveCount(1);
    await expect(rowOf("member.invited")).toContainText(invitee);
    await expect(rowOf("member.invited")).toContainText(owner); // the actor
    await expect(rowOf("member.invitation_revoked")).toHaveCount(1);
    await expect(rowOf("api_key.created")).toHaveCount(1);
    await expect(rowOf("api_key.revoked")).toHaveCount(1);
    // In words, with the key by the name it had (it is revoked now), not by its id alone.
    await expect(rowOf("api_key.revoked")).toContainText("Revoked an API key");
    await expect(rowOf("api_key.revoked").getByRole("cell").nth(3)).toContainText("API key “Audit probe”");
    await expect(rowOf("api_key.created")).toContainText(/127\.0\.0\.1|::1|::ffff:127\.0\.0\.1/);
    await expect(events.getByRole("button", { name: "Load more" })).toHaveCount(0);
    await shot(page, "settings-audit-log", true);

    await events.getByLabel("Action").selectOption("api_key.created");
    await expect(events.getByRole("row")).toHaveCount(2); // header + 1
    await expect(rowOf("api_key.revoked")).toHaveCount(0);
    await events.getByLabel("Action").selectOption("");

    // More than a page (25): "Load more" follows next_cursor until the oldest entry.
    const token = await accessToken(page.request, owner);
    for (let i = 0; i < 26; i++) {
      const res = await page.request.post("/api/v1/api-keys", { headers: { Authorization: `Bearer ${token}` }, data: { name: `bulk ${i}`, scopes: ["org:read"] } });
      expect(res.status()).toBe(201);
    }
    await page.reload();
    await expect(events.getByRole("row")).toHaveCount(26); // header + 25
    await expect(events.getByText("Showing the latest 25 events.")).toBeVisible();
    await events.getByRole("button", { name: "Load more" }).click();
    await expect(events.getByRole("row").filter({ hasText: "user.registered" })).toHaveCount(1);
    await expect(events.getByRole("button", { name: "Load more" })).toHaveCount(0);
    const total = (await events.getByRole("row").count()) - 1;
    expect(total).toBeGreaterThan(30);
    await expect(events.getByText(`Showing all ${total} events.`)).toBeVisible();
  });

  test("create an organization, rename it, delete it with its URL name", async ({ page }) => {
    const owner = uniqueEmail("org-create");
    await registerViaApi(page.request, owner);
    await logIn(page, owner);
    await page.goto("/settings/organization");

    // The first organization is the only one: it cannot be deleted yet.
    await expect(region(page, "Delete organization")).toContainText("This is your only organization");
    const create = region(page, "Create an organization");
    await create.getByLabel("Name", { exact: true }).fill("Second Team");
    await create.getByLabel("URL name").fill("Not A Slug");
    await create.getByRole("button", { name: "Create organization" }).click();
    await expect(create.getByLabel("URL name")).toHaveAccessibleDescription(/URL name must be/);
    const slug = `second-${Date.now().toString(36)}`;
    await create.getByLabel("URL name").fill(slug);
    await create.getByRole("button", { name: "Create organization" }).click();

    // We are switched to the new organization, as its owner.
    await expect(switcher(page)).toContainText("Second Team");
    const details = region(page, "Details");
    await expect(details).toContainText(slug);
    await expect(details).toContainText("Owner");
    await details.getByLabel("Organization name").fill("Second Team Renamed");
    await details.getByRole("button", { name: "Rename organization" }).click();
    await expect(details.getByRole("status")).toHaveText("Saved.");
    await expect(switcher(page)).toContainText("Second Team Renamed");
    await expect(page.getByRole("main").locator(".lead")).toContainText("Second Team Renamed");

    const danger = region(page, "Delete organization");
    const confirm = danger.getByLabel(`Type ${slug} to confirm`);
    await expect(danger.getByRole("button", { name: "Delete organization" })).toBeDisabled();
    await confirm.fill("wrong");
    await expect(danger.getByRole("button", { name: "Delete organization" })).toBeDisabled();
    await confirm.fill(slug);
    await shot(page, "settings-organization-delete", true);
    await danger.getByRole("button", { name: "Delete organization" }).click();

    // Out of the deleted organization: switched to the first one, or signed out to log in again.
    const loginHeading = page.getByRole("heading", { level: 1, name: "Log in" });
    await expect(loginHeading.or(switcher(page).filter({ hasText: orgNameOf(owner) }))).toBeVisible({ timeout: 10_000 });
    if (await loginHeading.isVisible()) {
      await logIn(page, owner);
      await page.goto("/settings/organization");
    }
    await expect(page).toHaveURL((url) => url.pathname === "/settings/organization");
    await expect(switcher(page)).toContainText(orgNameOf(owner));
    await switcher(page).click();
    await expect(page.getByRole("banner").getByRole("button", { name: /^Switch to / })).toHaveCount(0);
  });
});
