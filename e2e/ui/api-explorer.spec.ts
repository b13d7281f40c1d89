import { expect, test, type Page } from "@playwright/test";
import { accessToken, logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";
import { shot } from "../helpers/page";

/**
 * Issue 27: the API docs send requests. /docs/try renders the OpenAPI document with Swagger UI from
 * our own origin, under the pages' CSP, and "Try it out" calls the API with the browser session or
 * a pasted key.
 */

/** Every request the page makes, and every CSP violation it reports. */
function watch(page: Page) {
  const origins = new Set<string>();
  const violations: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.protocol.startsWith("http") || url.protocol.startsWith("ws")) origins.add(url.origin);
  });
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  return { origins, violations };
}

/** The GET operation of `path` in Swagger UI's list. */
const getOperation = (page: Page, path: string) => page.locator(".opblock-get").filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });

async function execute(page: Page, path: string) {
  const operation = getOperation(page, path);
  await operation.locator(".opblock-summary").first().click();
  await operation.getByRole("button", { name: "Try it out" }).click();
  await operation.getByRole("button", { name: "Execute" }).click();
  return operation.locator(".live-responses-table");
}

test.describe("API explorer (/docs/try)", () => {
  test("signed in, Try it out answers with the session, from our origin only, under the CSP", async ({ page, request, baseURL }) => {
    const email = uniqueEmail("explorer");
    await registerViaApi(request, email);
    const { origins, violations } = watch(page);
    await logIn(page, email);
    const response = await page.goto("/docs/try");
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).toContain("frame-ancestors 'none'");
    await expect(page.getByRole("heading", { level: 1, name: "Try the API" })).toBeVisible();
    const answer = await execute(page, "/api/v1/flows");
    await expect(answer.locator("tbody .response-col_status").first()).toHaveText(/^200/);
    await expect(answer.locator("tbody .response-col_description")).toContainText('"flows"');
    await shot(page, "api-explorer");
    expect([...origins]).toEqual([new URL(baseURL!).origin]);
    expect(violations).toEqual([]);
  });

  test("signed out, a pasted API key authorizes the request; without it the API says 401", async ({ page, request }) => {
    const email = uniqueEmail("explorer-key");
    await registerViaApi(request, email);
    const token = await accessToken(request, email);
    const created = await request.post("/api/v1/api-keys", { headers: { authorization: `Bearer ${token}` }, data: { name: "docs", kind: "user" } });
    expect(created.status()).toBe(201);
    const key = ((await created.json()) as { secret: string }).secret;

    await page.goto("/docs/try");
    const unauthorized = await execute(page, "/api/v1/flows");
    await expect(unauthorized.locator("tbody .response-col_status").first()).toHaveText(/^401/);

    await page.getByRole("button", { name: /Authorize/ }).first().click();
    const dialog = page.locator(".dialog-ux");
    const apiKeyBlock = dialog.locator(".auth-container").filter({ hasText: "X-API-Key" });
    await apiKeyBlock.locator("input").fill(key);
    await apiKeyBlock.getByRole("button", { name: "Apply credentials" }).click();
    await dialog.getByRole("button", { name: "Close" }).first().click();

    await getOperation(page, "/api/v1/flows").getByRole("button", { name: "Execute" }).click();
    await expect(unauthorized.locator("tbody .response-col_status").first()).toHaveText(/^200/);
  });
});

test("every page carries the CSP; the reference links to the explorer", async ({ page }) => {
  for (const path of ["/", "/login", "/docs"]) {
    const response = await page.goto(path);
    expect(response?.headers()["content-security-policy"], path).toMatch(/'nonce-/);
  }
  await page.getByRole("link", { name: "Try the API in the browser" }).click();
  await expect(page).toHaveURL(/\/docs\/try$/);
});
