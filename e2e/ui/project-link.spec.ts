import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { createFlow, getFlow, registerUser } from "../helpers/live";
import { canvasNode, debugMessages, editorToolbar, openSidebarTab, shot } from "../helpers/flows";

test.describe.configure({ timeout: 90_000 });

/**
 * FlowFuse's project nodes as a user sets them up in the editor: a project call and the project in
 * it reaches given one topic in their forms (keyboard), a project out returning the answer; deploy,
 * inject, and the answer in Debug with msg.projectLink, after a round trip through the
 * organization's built-in broker.
 */
test("a project call answered through a project in and a project out (return), set up in the forms", async ({ page, request }) => {
  const owner = await registerUser(request, "projlink");
  const s = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${s}`, call: `call-${s}`, debug: `dbg-${s}`, in: `in-${s}`, price: `price-${s}`, ret: `ret-${s}` };
  const flow = await createFlow(request, owner, `Price lookup ${s}`, {
    nodes: [
      { id: ids.inject, type: "inject", name: "sku", position: { x: 80, y: 80 }, config: { payload: "X-1", payload_type: "string" } },
      { id: ids.call, type: "project-link-call", name: "", position: { x: 300, y: 80 } },
      { id: ids.debug, type: "debug", name: "answer", position: { x: 520, y: 80 }, config: { property: "msg" } },
      { id: ids.in, type: "project-link-in", name: "", position: { x: 80, y: 220 } },
      { id: ids.price, type: "change", name: "price", position: { x: 300, y: 220 }, config: { rules: [{ t: "set", p: "price", to: "4.5", to_type: "num" }] } },
      { id: ids.ret, type: "project-link-out", name: "", position: { x: 520, y: 220 } },
    ],
    connections: [
      { source: ids.inject, target: ids.call },
      { source: ids.call, target: ids.debug },
      { source: ids.in, target: ids.price },
      { source: ids.price, target: ids.ret },
    ],
  });
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);

  // The call: its topic typed in the form.
  await canvasNode(page, ids.call).dblclick();
  const callDialog = page.getByRole("dialog", { name: "Edit project-link-call node" });
  const callTopic = callDialog.getByLabel("Topic", { exact: true });
  await callTopic.fill("");
  await callTopic.pressSequentially("lookup/price");
  await expect(callDialog.getByLabel("Target", { exact: true })).toHaveValue("flows");
  await shot(page, "project-link-call-form");
  await callDialog.getByRole("button", { name: "Done" }).click();
  await expect(callDialog).toHaveCount(0);

  // The project in: messages sent to this instance (not broadcasts), on the same topic.
  await canvasNode(page, ids.in).dblclick();
  const inDialog = page.getByRole("dialog", { name: "Edit project-link-in node" });
  await expect(inDialog.getByLabel("Listen for broadcasts", { exact: true })).not.toBeChecked();
  await inDialog.getByLabel("Topic", { exact: true }).fill("lookup/price");
  await inDialog.getByRole("button", { name: "Done" }).click();

  // The project out returns the answer to the calling node.
  await canvasNode(page, ids.ret).dblclick();
  const outDialog = page.getByRole("dialog", { name: "Edit project-link-out node" });
  await outDialog.getByLabel("Mode", { exact: true }).selectOption("return");
  await shot(page, "project-link-out-form");
  await outDialog.getByRole("button", { name: "Done" }).click();

  await editorToolbar(page).getByRole("button", { name: "Deploy" }).click();
  // Saved, then deployed: the flow runs. (It never ran before, so no "Undeployed changes" badge
  // was there to wait for; reading the flow at once raced the save.)
  await expect(editorToolbar(page).getByTestId("flow-state")).toHaveText("Running");
  const stored = await getFlow(request, owner, flow.id);
  const config = (id: string) => stored.nodes.find((n: { id: string }) => n.id === id).config;
  expect(config(ids.call)).toMatchObject({ project: "flows", topic: "lookup/price", timeout_seconds: 30 });
  expect(config(ids.in)).toMatchObject({ broadcast: false, topic: "lookup/price" });
  expect(config(ids.ret)).toMatchObject({ mode: "return" });
  // Unnamed, they are labelled as FlowFuse's editor labels them: the topic, or "link return".
  await expect(canvasNode(page, ids.call).locator(".fp-node-label")).toHaveText("lookup/price");
  await expect(canvasNode(page, ids.in).locator(".fp-node-label")).toHaveText("lookup/price");
  await expect(canvasNode(page, ids.ret).locator(".fp-node-label")).toHaveText("link return");
  await expect(canvasNode(page, ids.price).locator(".fp-node-label")).toHaveText("price");
  // Subscribed: the nodes say so on the canvas.
  await expect(canvasNode(page, ids.in)).toContainText("connected");

  await openSidebarTab(page, "Debug");
  await canvasNode(page, ids.inject).getByRole("button", { name: "Inject" }).click();
  await expect(debugMessages(page)).toHaveCount(1);
  const answer = debugMessages(page).first();
  await answer.getByRole("button", { name: /_msgid, payload/ }).click();
  await expect(answer).toContainText("price: 4.5");
  await expect(answer).toContainText('payload: "X-1"');
  await expect(answer).toContainText("projectLink");
  await shot(page, "project-link-answer", true);
});
