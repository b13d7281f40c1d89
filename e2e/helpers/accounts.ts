import { expect, type APIRequestContext, type Page } from "@playwright/test";

export const PASSWORD = "Tangerine-Rocket-42";

let counter = 0;

/** An address no other test (or earlier run on the same database) uses. */
export function uniqueEmail(label: string): string {
  counter += 1;
  return `e2e-${label}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}@example.com`;
}

/** Registers through the REST API, for tests whose subject is not registration. */
export async function registerViaApi(request: APIRequestContext, email: string, password = PASSWORD): Promise<void> {
  const res = await request.post("/api/v1/auth/register", {
    data: { email, password, organization_name: `Org of ${email.split("@")[0]}`, accept_terms: true, first_name: "Ada", last_name: "Tester" },
  });
  expect(res.status(), await res.text()).toBe(201);
}

/** Fills the first login step and submits it. */
export async function submitCredentials(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** Logs in from the login page; lands on the flows, where a login without a callback goes. */
export async function logIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await submitCredentials(page, email, password);
  await expect(page).toHaveURL((url) => url.pathname === "/flows");
  await expect(page.getByRole("heading", { level: 1, name: "Flows" })).toBeVisible();
}

/** Logs in and opens Account security (profile, MFA, sessions, API keys). */
export async function logInToAccount(page: Page, email: string, password = PASSWORD): Promise<void> {
  await logIn(page, email, password);
  await page.goto("/account/security");
  await expect(page.getByRole("heading", { level: 1, name: "Account security" })).toBeVisible();
}

export async function logOut(page: Page): Promise<void> {
  await page.getByRole("banner").getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** An access token for the REST API, for arranging data a test is not about. */
export async function accessToken(request: APIRequestContext, email: string): Promise<string> {
  const res = await request.post("/api/v1/auth/login", { data: { email, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}
