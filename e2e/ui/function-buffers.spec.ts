import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, registerUser } from "../helpers/live";
import { shot } from "../helpers/page";

test("a function node's Buffer reaches the debug sidebar as Node-RED shows one: msg.payload : buffer[5], its bytes", async ({ page, request }) => {
  const owner = await registerUser(request, "buf-debug");
  const flow = await createFlow(request, owner, "Buffers", {
    nodes: [
      { id: "bd-inj", type: "inject", name: "bytes", config: { payload_type: "string", payload: "Hello" }, position: { x: 80, y: 80 } },
      { id: "bd-fn", type: "function", name: "to Buffer", config: { code: "msg.payload = Buffer.from(msg.payload);\nreturn msg;" }, position: { x: 300, y: 80 } },
      { id: "bd-dbg", type: "debug", name: "show", position: { x: 520, y: 80 } },
    ],
    connections: [
      { source: "bd-inj", target: "bd-fn" },
      { source: "bd-fn", target: "bd-dbg" },
    ],
  });
  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await expect(page.getByTestId("flow-state")).toHaveText(/Running/);
  await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
  await page.locator('.react-flow__node[data-id="bd-inj"]').getByRole("button", { name: "Inject" }).click();
  const message = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message").first();
  await expect(message).toContainText("msg.payload : buffer[5]");
  await expect(message).toContainText("buffer[5] 48 65 6c 6c 6f");
  await message.getByRole("button", { name: /buffer\[5\]/ }).click();
  await expect(message).toContainText("4: 111");
  await shot(page, "function-buffer-debug");
});
