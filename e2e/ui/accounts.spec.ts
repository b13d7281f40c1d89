import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { PASSWORD, logIn, logInToAccount, logOut, registerViaApi, submitCredentials, uniqueEmail } from "../helpers/accounts";
import { expectAccessible, shot } from "../helpers/page";
import { linkIn, waitForMail } from "../helpers/outbox";
import { totpCode } from "../helpers/totp";

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
// Scoped to main: Next's route announcer is an (empty) role="alert" element too.
const alertIn = (page: Page) => page.getByRole("main").getByRole("alert");

test.describe("accounts in the browser", () => {
  test("register, verify the email from the mail, log out and log in again", async ({ page }) => {
    const email = uniqueEmail("register");

    await page.goto("/login");
    await expect(page.getByRole("heading", { level: 1, name: "Log in" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Forgot your password?" })).toHaveAttribute("href", "/forgot-password");
    await shot(page, "login", true);
    await page.getByRole("link", { name: "Create an account" }).click();

    await expect(page).toHaveURL(/\/register$/);
    await expect(page.getByRole("heading", { level: 1, name: "Create an account" })).toBeVisible();
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("password");
    await page.getByLabel("First name").fill("Grace");
    await page.getByLabel("Last name").fill("Hopper");
    await page.getByLabel("Organization name").fill("Hopper Labs");
    // The operator's terms (TERMS_URL, playwright.config.ts) are a link beside the box, in a new tab.
    const terms = page.getByRole("link", { name: "Read the terms of service" });
    await expect(terms).toHaveAttribute("href", "https://terms.example.com/flowplane");
    await expect(terms).toHaveAttribute("target", "_blank");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByLabel("I accept the terms of service")).toHaveAccessibleDescription("Read the terms of service You must accept the terms of service.");

    // The server's field errors land beside their fields.
    await page.getByLabel("I accept the terms of service").check();
    await page.getByRole("button", { name: "Create account" }).click();
    const password = page.getByLabel("Password", { exact: true });
    await expect(password).toHaveAttribute("aria-invalid", "true");
    await expect(password).toHaveAccessibleDescription(/is too common/);
    await expect(page.getByText("You must accept the terms of service.")).toBeHidden();
    await shot(page, "register-errors", true);

    await password.fill(PASSWORD);
    await page.getByLabel("Organization URL name").fill("Not A Slug");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByLabel("Organization URL name")).toHaveAccessibleDescription(/Organization URL name must be/);

    await page.getByLabel("Organization URL name").fill("");
    await page.getByLabel("Send me the product newsletter").check();
    await shot(page, "register", true);
    await page.getByRole("button", { name: "Create account" }).click();

    await expect(page).toHaveURL((url) => url.pathname === "/account/security" && url.search === "?welcome=1");
    await expect(page.getByRole("status").filter({ hasText: "We sent a verification link" })).toContainText(email);
    // A newcomer's next step is in the welcome: the flows.
    await expect(page.getByRole("status").getByRole("link", { name: "open your flows" })).toHaveAttribute("href", "/flows");
    await expect(page.getByRole("banner")).toContainText(email);
    const profile = region(page, "Profile");
    await expect(profile.getByText("Not verified")).toBeVisible();
    await expect(profile.getByLabel("First name")).toHaveValue("Grace");

    // Registering again with the same email offers to log in.
    const other = await page.context().browser()!.newPage();
    await other.goto("/register");
    await other.getByLabel("Email", { exact: true }).fill(email);
    await other.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await other.getByLabel("Organization name").fill("Second try");
    await other.getByLabel("I accept the terms of service").check();
    await other.getByRole("button", { name: "Create account" }).click();
    await expect(alertIn(other)).toContainText("An account with this email exists already.");
    await expect(alertIn(other).getByRole("link", { name: "Log in instead?" })).toHaveAttribute("href", "/login");
    await other.close();

    const mail = await waitForMail(email, /Confirm your email/);
    const link = linkIn(mail, "/verify-email");
    await page.goto(link);
    await expect(page.getByRole("heading", { level: 1, name: "Verify your email" })).toBeVisible();
    await expect(page.getByText("Your email is verified.")).toBeVisible();
    // Signed in here: the header has the account's links, not only the API docs.
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Flows", exact: true })).toHaveAttribute("href", "/flows");
    await expect(page.getByRole("banner").getByRole("button", { name: "Log out" })).toBeVisible();
    await shot(page, "verify-email", true);

    // The token is single use.
    await page.goto(link);
    await expect(alertIn(page)).toContainText("not valid or has been used already");
    await expect(page.getByText("Resend verification email")).toBeVisible();
    await shot(page, "verify-email-used", true);

    await page.goto("/account/security");
    await expect(region(page, "Profile").getByText("Verified", { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Resend verification email" })).toHaveCount(0);

    await logOut(page);
    await page.goto("/account/security");
    await expect(page).toHaveURL(/\/login\?callbackUrl=\/account\/security$/);

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(alertIn(page)).toHaveText("Email or password is not correct.");
    await shot(page, "login-error", true);

    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    // Back on the page that asked for the login.
    await expect(page).toHaveURL((url) => url.pathname === "/account/security");

    // Signed in, the home page offers the account instead of the ways in.
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Account", exact: true })).toHaveAttribute("href", "/account/security");
    await expect(nav.getByRole("button", { name: "Log out" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Log in" })).toHaveCount(0);
  });

  test("profile: edit, validation and saving", async ({ page }) => {
    const email = uniqueEmail("profile");
    await registerViaApi(page.request, email);
    await logInToAccount(page, email);

    const profile = region(page, "Profile");
    await profile.getByLabel("Avatar URL").fill("http://example.com/a.png");
    await profile.getByRole("button", { name: "Save profile" }).click();
    await expect(profile.getByLabel("Avatar URL")).toHaveAccessibleDescription(/must be an https URL/);

    await profile.getByLabel("First name").fill("Katherine");
    await profile.getByLabel("Locale").fill("pt-BR");
    await profile.getByLabel("Time zone").selectOption("Europe/Paris");
    await profile.getByLabel("Avatar URL").fill("https://example.com/a.png");
    await profile.getByRole("button", { name: "Save profile" }).click();
    await expect(profile.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

    await page.reload();
    await expect(profile.getByLabel("First name")).toHaveValue("Katherine");
    await expect(profile.getByLabel("Locale")).toHaveValue("pt-BR");
    await expect(profile.getByLabel("Time zone")).toHaveValue("Europe/Paris");

    // Resending the verification link.
    await profile.getByRole("button", { name: "Resend verification email" }).click();
    await expect(profile.getByText(`A new verification link is on its way to ${email}.`)).toBeVisible();
    await waitForMail(email, /Confirm your email/, { count: 2 });

    const password = region(page, "Password");
    await password.getByLabel("Current password").fill("wrong-password-1");
    await password.getByLabel("New password").fill("Another-Strong-Pass-7");
    await password.getByRole("button", { name: "Change password" }).click();
    await expect(password.getByLabel("Current password")).toHaveAccessibleDescription("Current password is not correct.");
    await password.getByLabel("Current password").fill(PASSWORD);
    await password.getByRole("button", { name: "Change password" }).click();
    await expect(password.getByRole("status")).toContainText("Your other sessions were logged out.");
  });

  test("MFA: enrol in the browser, log in with a TOTP code and with a backup code", async ({ page, context }) => {
    // Five password checks at bcrypt cost 12 (two at enrolment, three logins): more than 30 s on a busy machine.
    test.slow();
    const email = uniqueEmail("mfa");
    await registerViaApi(page.request, email);
    await logInToAccount(page, email);

    const mfa = region(page, "Two-factor authentication");
    // Enrolment asks for the password again: a wrong one is refused on the field.
    await mfa.getByLabel("Password").fill("not-my-password");
    await mfa.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await expect(mfa.getByLabel("Password")).toHaveAccessibleDescription(/Password is not correct\./);
    await mfa.getByLabel("Password").fill(PASSWORD);
    await mfa.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await expect(mfa.getByRole("img", { name: "QR code for your authenticator app" })).toBeVisible();
    const secret = ((await page.getByLabel("Secret key").textContent()) ?? "").trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectAccessible(page);
    await shot(page, "account-mfa-setup", true);

    await mfa.getByLabel("Authentication code").fill("12345");
    await mfa.getByRole("button", { name: "Confirm" }).click();
    await expect(mfa.getByLabel("Authentication code")).toHaveAccessibleDescription(/6-digit code/);

    await mfa.getByLabel("Authentication code").fill(totpCode(secret));
    await mfa.getByRole("button", { name: "Confirm" }).click();
    const list = mfa.getByRole("list", { name: "Backup codes" });
    await expect(list.getByRole("listitem")).toHaveCount(8);
    const codes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
    for (const code of codes) expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    await expect(mfa.getByText("Store these codes somewhere safe now.")).toBeVisible();

    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await mfa.getByRole("button", { name: "Copy codes" }).click();
    await expect(mfa.getByRole("status").filter({ hasText: "Copied." })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));

    const downloading = page.waitForEvent("download");
    await mfa.getByRole("button", { name: "Download codes" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("flowplane-backup-codes.txt");
    const text = fs.readFileSync((await download.path())!, "utf8");
    for (const code of codes) expect(text).toContain(code);
    await expectAccessible(page);
    await shot(page, "account-mfa-backup-codes", true);

    // Shown once: after a reload only the "on" state remains.
    await page.reload();
    await expect(mfa.getByText("Two-factor authentication is on")).toBeVisible();
    await expect(mfa.getByRole("list", { name: "Backup codes" })).toHaveCount(0);
    await shot(page, "account-mfa-on", true);

    await logOut(page);
    await submitCredentials(page, email);
    const code = page.getByLabel("Authentication code");
    await expect(code).toBeVisible();
    await expect(code).toHaveAttribute("inputmode", "numeric");
    await expect(code).toHaveAttribute("autocomplete", "one-time-code");
    await shot(page, "login-mfa", true);
    // The enrolment used the current 30 s step and codes are accepted once: take the next one.
    await code.fill(totpCode(secret, Date.now() + 30_000));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/flows");

    await logOut(page);
    await submitCredentials(page, email);
    await page.getByRole("button", { name: "Use a backup code instead" }).click();
    await page.getByLabel("Backup code").fill(codes[0]!.toLowerCase());
    await shot(page, "login-mfa-backup", true);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/flows");

    // A used backup code is refused, with the error on the MFA step.
    await logOut(page);
    await submitCredentials(page, email);
    await page.getByRole("button", { name: "Use a backup code instead" }).click();
    await page.getByLabel("Backup code").fill(codes[0]!);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(alertIn(page)).toHaveText("That code is not valid. Try again.");
    await page.getByRole("button", { name: "Use your authenticator app instead" }).click();
    await page.getByLabel("Authentication code").fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(alertIn(page)).toHaveText("That code is not valid. Try again.");
    await shot(page, "login-mfa-error", true);
    await page.getByRole("button", { name: "Use a backup code instead" }).click();
    await page.getByLabel("Backup code").fill(codes[1]!);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/flows");
    await page.goto("/account/security");

    // New backup codes replace the old ones; then MFA goes off with the password and a code.
    await mfa.getByLabel("Authentication code").fill(codes[2]!);
    await mfa.getByRole("button", { name: "Generate new backup codes" }).click();
    await expect(mfa.getByRole("list", { name: "Backup codes" }).getByRole("listitem")).toHaveCount(8);
    const fresh = (await mfa.getByRole("list", { name: "Backup codes" }).getByRole("listitem").allTextContents()).map((c) => c.trim());
    expect(fresh).not.toContain(codes[3]);
    await mfa.getByRole("button", { name: "I have stored my codes" }).click();

    await mfa.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await mfa.getByLabel("Authentication or backup code").fill(codes[3]!);
    await mfa.getByRole("button", { name: "Disable two-factor authentication" }).click();
    await expect(mfa.getByLabel("Authentication or backup code")).toHaveAccessibleDescription("That code is not valid. Try again.");
    await mfa.getByLabel("Authentication or backup code").fill(fresh[0]!);
    await mfa.getByRole("button", { name: "Disable two-factor authentication" }).click();
    await expect(mfa.getByText("Two-factor authentication is off. Your other sessions were logged out.")).toBeVisible();
    await expect(mfa.getByRole("button", { name: "Set up two-factor authentication" })).toBeVisible();
  });

  test("forgot password: the mailed link sets a new password", async ({ page }) => {
    const email = uniqueEmail("reset");
    await registerViaApi(page.request, email);
    const newPassword = "Velvet-Harbor-Lantern-9";

    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.getByLabel("Email").fill(email);
    await shot(page, "forgot-password", true);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByRole("status")).toHaveText("If an account exists for this email, a reset link is on its way.");
    await shot(page, "forgot-password-sent", true);

    const link = linkIn(await waitForMail(email, /Reset your/), "/reset-password");
    await page.goto(link);
    await expect(page.getByRole("heading", { level: 1, name: "Choose a new password" })).toBeVisible();
    await page.getByLabel("New password").fill(newPassword);
    await page.getByLabel("Confirm password").fill(`${newPassword}x`);
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(page.getByLabel("Confirm password")).toHaveAccessibleDescription("The passwords do not match.");
    await shot(page, "reset-password", true);
    await page.getByLabel("Confirm password").fill(newPassword);
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(page.getByRole("status")).toContainText("Your password has been changed.");
    await shot(page, "reset-password-done", true);

    // The link works once.
    await page.goto(link);
    await page.getByLabel("New password").fill("Some-Other-Pass-88");
    await page.getByLabel("Confirm password").fill("Some-Other-Pass-88");
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(alertIn(page)).toHaveText("This reset link is not valid or has been used already.");
    await expect(page.getByRole("link", { name: "Request a new link" })).toHaveAttribute("href", "/forgot-password");
    await shot(page, "reset-password-invalid", true);

    await submitCredentials(page, email, PASSWORD);
    await expect(alertIn(page)).toHaveText("Email or password is not correct.");
    await logIn(page, email, newPassword);
  });

  test("sessions: revoking another device's session signs that device out", async ({ page, browser }) => {
    const email = uniqueEmail("sessions");
    await registerViaApi(page.request, email);
    await logInToAccount(page, email);

    const second = await browser.newContext();
    const secondPage = await second.newPage();
    await logIn(secondPage, email);
    const third = await browser.newContext();
    const thirdPage = await third.newPage();
    await logIn(thirdPage, email);

    await page.reload();
    const sessions = region(page, "Active sessions");
    const rows = sessions.getByRole("row");
    await expect(rows).toHaveCount(4); // header + 3
    await expect(sessions.getByRole("row").filter({ hasText: "This device" })).toHaveCount(1);
    await expect(sessions.getByRole("button", { name: /^Revoke session / })).toHaveCount(2);
    await shot(page, "account-sessions", true);

    // The second device's session is the one that is neither current nor the third's.
    const secondIdResponse = await secondPage.request.get("/api/trpc/auth.sessions");
    const secondSessions = (await secondIdResponse.json()).result.data.sessions as { id: string; current: boolean }[];
    const secondId = secondSessions.find((s) => s.current)!.id;
    const short = secondId.replace(/^ses_/, "").slice(0, 8);
    await sessions.getByRole("button", { name: `Revoke session ${short}` }).click();
    await expect(rows).toHaveCount(3);

    await secondPage.goto("/account/security");
    await expect(secondPage).toHaveURL(/\/login\?callbackUrl=\/account\/security$/);
    await expect(secondPage.getByRole("heading", { level: 1, name: "Log in" })).toBeVisible();

    await sessions.getByRole("button", { name: "Log out all other sessions" }).click();
    await expect(rows).toHaveCount(2);
    await expect(sessions.getByRole("button", { name: "Log out all other sessions" })).toBeDisabled();
    await thirdPage.goto("/account/security");
    await expect(thirdPage).toHaveURL(/\/login/);

    // The current device is unaffected.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Account security" })).toBeVisible();
    await second.close();
    await third.close();
  });

  test("delete account: password and confirmation, then signed out", async ({ page }) => {
    const email = uniqueEmail("delete");
    await registerViaApi(page.request, email);
    await logInToAccount(page, email);

    const danger = region(page, "Delete account");
    const deleteButton = danger.locator("form").getByRole("button", { name: "Delete my account" });
    const confirmDelete = page.getByRole("dialog", { name: "Delete your account?" });
    await danger.getByLabel("Password").fill("wrong-password-1");
    // Nothing is sent until the dialog is confirmed: it starts on Cancel, Escape closes it, and
    // focus goes back to the button.
    await deleteButton.click();
    await expect(confirmDelete).toContainText("You will be logged out everywhere, and this cannot be undone.");
    await expect(confirmDelete.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessible(page);
    await shot(page, "account-delete-confirm", true);
    await page.keyboard.press("Escape");
    await expect(confirmDelete).toBeHidden();
    await expect(deleteButton).toBeFocused();
    await expect(danger.getByLabel("Password")).not.toHaveAttribute("aria-invalid", "true");
    await deleteButton.click();
    await confirmDelete.getByRole("button", { name: "Cancel" }).click();
    await expect(confirmDelete).toBeHidden();
    await expect(danger.getByLabel("Password")).not.toHaveAttribute("aria-invalid", "true");

    await deleteButton.click();
    await confirmDelete.getByRole("button", { name: "Delete my account" }).click();
    await expect(danger.getByLabel("Password")).toHaveAccessibleDescription("Password is not correct.");

    await danger.getByLabel("Password").fill(PASSWORD);
    await deleteButton.click();
    await confirmDelete.getByRole("button", { name: "Delete my account" }).click();
    await expect(page).toHaveURL(/\/$/);
    await submitCredentials(page, email);
    await expect(alertIn(page)).toHaveText("Email or password is not correct.");
  });

  test("login sends people back where they came from, but only on this site", async ({ page }) => {
    const email = uniqueEmail("callback");
    await registerViaApi(page.request, email);
    await page.goto("/login?callbackUrl=https://evil.example/steal");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/flows");

    // Signed in already: the login page forwards.
    await page.goto("/login?callbackUrl=/");
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
  });

  test("a form submitted before the page's script has run sends no password in the address", async ({ browser }) => {
    // A slow phone: the page is shown and typed into before its JavaScript runs. The browser then
    // submits the form itself; without method="post" it would put every field in the URL (history,
    // proxies' and servers' logs). Without JavaScript at all, the same.
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const fill: Record<string, (p: Page) => Promise<void>> = {
      "/login": async (p) => {
        await p.getByLabel("Email", { exact: true }).fill("someone@example.com");
        await p.getByLabel("Password", { exact: true }).fill(PASSWORD);
      },
      "/register": async (p) => {
        await p.getByLabel("Email", { exact: true }).fill("someone@example.com");
        await p.getByLabel("Password", { exact: true }).fill(PASSWORD);
        await p.getByLabel("First name").fill("Grace");
        await p.getByLabel("Last name").fill("Hopper");
        await p.getByLabel("Organization name").fill("Hopper Labs");
        await p.getByLabel("I accept the terms of service").check();
      },
    };
    for (const [path, fillIn] of Object.entries(fill)) {
      await page.goto(path);
      await fillIn(page);
      const submitted = page.waitForRequest((r) => r.isNavigationRequest() && r.frame() === page.mainFrame());
      await page.getByLabel("Password", { exact: true }).press("Enter");
      const request = await submitted;
      expect(request.method(), path).toBe("POST");
      expect(new URL(request.url()).search, path).toBe("");
      await page.waitForLoadState();
      expect(new URL(page.url()).search, path).toBe("");
    }
    await context.close();
  });
});
