import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { createFlow, getFlow, registerUser } from "../helpers/live";
import { canvasNode, debugMessages, debugRegion, editorToolbar, openSidebarTab, shot } from "../helpers/flows";

test.describe.configure({ timeout: 90_000 });


/**
 * http request's failed request, as Node-RED's: it reaches the catch node and goes on out of the
 * node with the error as msg.payload; with "Only send request errors to Catch nodes" ticked in its
 * form, only the catch node hears of it. The target is refused (a loopback address is not allowed).
 */
test("a failed request goes to Debug through both the output and the catch node; ticked catch-only in the form, through the catch node alone", async ({ page, request }) => {
  const owner = await registerUser(request, "hr-errors");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${s}`, req: `req-${s}`, out: `out-${s}`, c: `catch-${s}`, caught: `caught-${s}` };
  const flow = await createFlow(request, owner, `Calls a refused address ${s}`, {
    nodes: [
      { id: ids.inject, type: "inject", name: "go", position: { x: 80, y: 100 }, config: { payload_type: "string", payload: "hello" } },
      { id: ids.req, type: "http-request", name: "call", position: { x: 300, y: 100 }, config: { url: "http://127.0.0.1:9/status" } },
      { id: ids.out, type: "debug", name: "out", position: { x: 520, y: 100 } },
      { id: ids.c, type: "catch", name: "on error", position: { x: 80, y: 240 } },
      { id: ids.caught, type: "debug", name: "caught", position: { x: 300, y: 240 }, config: { property: "error" } },
    ],
    connections: [
      { source: ids.inject, target: ids.req },
      { source: ids.req, target: ids.out },
      { source: ids.c, target: ids.caught },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  await openSidebarTab(page, "Debug");
  const inject = canvasNode(page, ids.inject).getByRole("button", { name: "Inject" });

  await inject.click();
  await expect(debugMessages(page)).toHaveCount(2);
  await expect(debugMessages(page).filter({ hasText: "caught" })).toHaveCount(1);
  const out = debugMessages(page).filter({ hasText: "out" });
  await expect(out).toContainText("RequestError:");
  await expect(out).toContainText("http://127.0.0.1:9/status");
  await shot(page, "http-request-failure-debug", true);

  // The form: tick "Only send request errors to Catch nodes", deploy, inject again.
  await canvasNode(page, ids.req).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit http-request node" });
  const catchOnly = dialog.getByLabel("Only send request errors to Catch nodes");
  await expect(catchOnly).not.toBeChecked();
  await catchOnly.check();
  await shot(page, "http-request-catch-only-form");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  await expect(editorToolbar(page).getByText("Undeployed changes")).toHaveCount(0);
  const stored = await getFlow(request, owner, flow.id);
  expect(stored.nodes.find((n: { id: string }) => n.id === ids.req).config).toMatchObject({ errors_to_catch_only: true });

  await debugRegion(page).getByRole("button", { name: "Clear" }).click();
  await expect(debugMessages(page)).toHaveCount(0);
  await inject.click();
  await expect(debugMessages(page).filter({ hasText: "caught" })).toHaveCount(1);
  // Given time to arrive, nothing comes out of the node itself.
  await page.waitForTimeout(1000);
  await expect(debugMessages(page)).toHaveCount(1);
});

/**
 * The form's "Payload of a GET" and "Message headers" (Node-RED's paytoqs and header rows read from
 * the message): set in the dialog, saved as the node's, and in effect once deployed: a GET that
 * would append a text payload to its query string is the node's error, "Invalid payload", which
 * the catch node shows, and nothing is sent.
 */
test("a GET's payload as query-string parameters and a header from the message, set in the form, deploy and run", async ({ page, request }) => {
  const owner = await registerUser(request, "hr-query");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${s}`, req: `req-${s}`, c: `catch-${s}`, caught: `caught-${s}` };
  const flow = await createFlow(request, owner, `Searches ${s}`, {
    nodes: [
      { id: ids.inject, type: "inject", name: "go", position: { x: 80, y: 100 }, config: { payload_type: "string", payload: "not an object" } },
      { id: ids.req, type: "http-request", name: "search", position: { x: 300, y: 100 }, config: { url: "https://api.example.test/search" } },
      { id: ids.c, type: "catch", name: "on error", position: { x: 80, y: 240 } },
      { id: ids.caught, type: "debug", name: "caught", position: { x: 300, y: 240 }, config: { property: "error" } },
    ],
    connections: [
      { source: ids.inject, target: ids.req },
      { source: ids.c, target: ids.caught },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await canvasNode(page, ids.req).dblclick();
  const dialog = page.getByRole("dialog", { name: "Edit http-request node" });
  // A long form: Cancel and Done are in view from the start, and stay so at its end.
  await expect(dialog.getByRole("button", { name: "Done" })).toBeInViewport({ ratio: 1 });
  const getPayload = dialog.getByLabel("Payload of a GET");
  await expect(getPayload.locator("option:checked")).toHaveText("Ignore");
  await getPayload.selectOption({ label: "Append to query-string parameters" });
  await dialog.getByRole("button", { name: "Add message header" }).click();
  const header = dialog.getByLabel("Header (message header 1)");
  await expect(header).toBeFocused();
  await header.fill("X-Token");
  await dialog.getByLabel("Message property (message header 1)").fill("token");
  await shot(page, "http-request-query-form");
  await dialog.getByLabel("Password or token").scrollIntoViewIfNeeded();
  await expect(dialog.getByRole("button", { name: "Done" })).toBeInViewport({ ratio: 1 });
  await expect(dialog.getByLabel("Password or token")).toBeInViewport();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  // Its first deploy: saved, then running.
  await expect(editorToolbar(page).getByText("Running")).toBeVisible();
  const stored = await getFlow(request, owner, flow.id);
  expect(stored.nodes.find((n: { id: string }) => n.id === ids.req).config).toMatchObject({ get_payload: "query", message_headers: [{ header: "X-Token", property: "token" }] });

  await openSidebarTab(page, "Debug");
  await canvasNode(page, ids.inject).getByRole("button", { name: "Inject" }).click();
  const caught = debugMessages(page).filter({ hasText: "caught" });
  await expect(caught).toHaveCount(1);
  await expect(canvasNode(page, ids.req)).toContainText("Invalid payload");
  await expect(debugMessages(page)).toHaveCount(1);
});

/**
 * A node's error that no catch node takes is in the Debug list, as Node-RED's sidebar shows
 * node.error (the node's status, replaced by its next one, is not enough: a reconnecting MQTT
 * client's "connecting" hid why it failed). One a catch node takes is not (above: two messages).
 */
test("an uncaught node error shows in Debug among the messages, marked as an error", async ({ page, request }) => {
  const owner = await registerUser(request, "node-error-debug");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${s}`, fn: `fn-${s}`, out: `out-${s}` };
  const flow = await createFlow(request, owner, `Fails loudly ${s}`, {
    nodes: [
      { id: ids.inject, type: "inject", name: "go", position: { x: 80, y: 100 }, config: { payload_type: "string", payload: "hello" } },
      { id: ids.fn, type: "function", name: "fails", position: { x: 300, y: 100 }, config: { code: 'node.error("the pump did not answer to " + msg.payload, msg);\nreturn null;' } },
      { id: ids.out, type: "debug", name: "out", position: { x: 520, y: 100 } },
    ],
    connections: [
      { source: ids.inject, target: ids.fn },
      { source: ids.fn, target: ids.out },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  await openSidebarTab(page, "Debug");
  await canvasNode(page, ids.inject).getByRole("button", { name: "Inject" }).click();
  const error = debugMessages(page).filter({ hasText: "the pump did not answer to hello" });
  await expect(error).toHaveCount(1);
  await expect(error).toHaveClass(/\berror\b/);
  await expect(error).toContainText("fails");
  await shot(page, "node-error-in-debug", true);
});
