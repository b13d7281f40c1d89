import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { registerUser } from "../helpers/live";
import { shot } from "../helpers/flows";

/** An unknown address is the app's page, with its header and a way back, not a dead end. */
test("an unknown page or flow answers 404 inside the app, with its header and links back", async ({ page, request }) => {
  const missing = await page.goto("/no-such-page");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Log in" }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Go home" })).toHaveAttribute("href", "/");

  const owner = await registerUser(request, "not-found");
  await logIn(page, owner.email);
  const flow = await page.goto("/flows/flw_doesnotexist");
  expect(flow?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await shot(page, "not-found-signed-in", true);
  await page.getByRole("link", { name: "Go to your flows" }).click();
  await expect(page).toHaveURL(/\/flows$/);
});
