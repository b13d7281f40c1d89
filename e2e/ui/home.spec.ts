import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { logIn, registerViaApi, uniqueEmail } from "../helpers/accounts";

// Full-page screenshots kept after the run for a human to look at (outside Playwright's
// outputDir, which is emptied at the start of every run).
const SCREENSHOTS = path.resolve(import.meta.dirname, "../../test-results/screenshots");

test.beforeAll(() => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
});

test.describe("public pages", () => {
  test("home page shows the pitch and the ways in", async ({ page }) => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    expect(response?.headers()["x-content-type-options"]).toBe("nosniff");

    await expect(page.getByRole("heading", { level: 1, name: "Flows for every team, run for you" })).toBeVisible();

    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "API docs", exact: true })).toHaveAttribute("href", "/docs");
    await expect(nav.getByRole("link", { name: "Log in", exact: true })).toHaveAttribute("href", "/login");
    await expect(nav.getByRole("link", { name: "Create an account", exact: true })).toHaveAttribute("href", "/register");

    const main = page.getByRole("main");
    await expect(main.getByRole("link", { name: "Create an account", exact: true })).toHaveAttribute("href", "/register");
    await expect(main.getByRole("link", { name: "Log in", exact: true })).toHaveAttribute("href", "/login");
    await expect(main.getByRole("link", { name: "Read the API docs" })).toHaveAttribute("href", "/docs");

    await expect(page.getByRole("region", { name: "What you get" }).getByRole("heading", { level: 2 })).toHaveCount(6);
    await expect(page.getByRole("link", { name: "Flowplane", exact: true })).toHaveAttribute("href", "/");
    // The tab's icon: declared, served (no request for a missing /favicon.ico).
    const icon = await page.locator('link[rel="icon"]').getAttribute("href");
    expect(icon).toMatch(/^\/icon\.svg/);
    const served = await page.request.get(icon!);
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toContain("image/svg+xml");

    await page.screenshot({ path: path.join(SCREENSHOTS, "home.png"), fullPage: true });
  });

  test("signed in, the home page leads to the flows: the header's Flows link and the first button", async ({ page }) => {
    const email = uniqueEmail("home");
    await registerViaApi(page.request, email);
    await logIn(page, email);
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Flows", exact: true })).toHaveAttribute("href", "/flows");
    await expect(nav.getByRole("link", { name: "Log in", exact: true })).toHaveCount(0);
    const main = page.getByRole("main");
    await expect(main.getByRole("link", { name: "Your account" })).toHaveAttribute("href", "/account/security");
    await page.screenshot({ path: path.join(SCREENSHOTS, "home-signed-in.png"), fullPage: true });
    await main.getByRole("link", { name: "Open your flows" }).click();
    await expect(page).toHaveURL(/\/flows$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });

  test("the API docs link leads to the docs page", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("main").getByRole("link", { name: "Read the API docs" }).click();
    await expect(page).toHaveURL(/\/docs$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });

  test("docs page lists the system endpoints and links to the OpenAPI document", async ({ page }) => {
    const response = await page.goto("/docs");
    expect(response?.status()).toBe(200);

    await expect(page.getByRole("heading", { level: 1 })).toContainText("Flowplane API");
    await expect(page.getByRole("link", { name: "/api/v1/openapi.json" })).toHaveAttribute("href", "/api/v1/openapi.json");

    const system = page.getByRole("region", { name: "system" });
    await expect(system).toBeVisible();
    const health = system.getByRole("row").filter({ hasText: "/api/v1/health" });
    await expect(health).toHaveCount(1);
    await expect(health.locator(".method")).toHaveText("GET");
    await expect(health.getByText("/api/v1/health", { exact: true })).toBeVisible();
    await expect(system.getByText("/api/v1/ready", { exact: true })).toBeVisible();
    await expect(system.getByText("/api/v1/settings", { exact: true })).toBeVisible();

    await page.screenshot({ path: path.join(SCREENSHOTS, "docs.png"), fullPage: true });
  });

  test("the OpenAPI link on the docs page serves the document", async ({ page }) => {
    await page.goto("/docs");
    const href = await page.getByRole("link", { name: "/api/v1/openapi.json" }).getAttribute("href");
    const res = await page.request.get(href!);
    expect(res.status()).toBe(200);
    expect((await res.json()).openapi).toBe("3.1.0");
  });
});
