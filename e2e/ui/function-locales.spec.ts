import { test, expect } from "@playwright/test";
import { logIn } from "../helpers/accounts";
import { auth, createFlow, registerUser } from "../helpers/live";
import { shot } from "../helpers/page";

test("a function node's locale answers (Intl, toLocaleString, localeCompare) and RED.util reach the debug sidebar as Node-RED's", async ({ page, request }) => {
  const owner = await registerUser(request, "fn-locale");
  const code = [
    "msg.payload = [",
    "  new Date(0).toLocaleString('de-DE', { timeZone: 'Europe/Berlin' }),",
    "  (1234567.891).toLocaleString('de-DE'),",
    "  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(-3.5),",
    "  ['b', 'A', 'a', 'B'].sort((x, y) => x.localeCompare(y)).join(' '),",
    "  RED.util.getMessageProperty(msg, 'topic'),",
    "];",
    "return msg;",
  ].join("\n");
  const flow = await createFlow(request, owner, "Locales", {
    nodes: [
      { id: "fl-inj", type: "inject", name: "go", config: { topic: "from RED.util" }, position: { x: 80, y: 80 } },
      { id: "fl-fn", type: "function", name: "locales", config: { code }, position: { x: 300, y: 80 } },
      { id: "fl-dbg", type: "debug", name: "show", position: { x: 520, y: 80 } },
    ],
    connections: [
      { source: "fl-inj", target: "fl-fn" },
      { source: "fl-fn", target: "fl-dbg" },
    ],
  });
  expect((await request.post(`/api/v1/flows/${flow.id}/deploy`, { headers: auth(owner) })).status()).toBe(200);
  await logIn(page, owner.email);
  await page.goto(`/flows/${flow.id}`);
  await expect(page.getByTestId("flow-state")).toHaveText(/Running/);
  await page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name: "Debug" }).click();
  await page.locator('.react-flow__node[data-id="fl-inj"]').getByRole("button", { name: "Inject" }).click();
  const message = page.getByRole("region", { name: "Debug" }).getByTestId("debug-message").first();
  await expect(message).toContainText("msg.payload : array[5]");
  await message.getByRole("button", { name: /array\[5\]/ }).click();
  // V8's answers, as Node-RED's code gets them (QuickJS alone ignores locales and compares code points).
  await expect(message).toContainText('0: "1.1.1970, 01:00:00"');
  await expect(message).toContainText('1: "1.234.567,891"');
  await expect(message).toContainText('2: "-€3.50"');
  await expect(message).toContainText('3: "a A b B"');
  await expect(message).toContainText('4: "from RED.util"');
  await shot(page, "function-locales-debug");
});
