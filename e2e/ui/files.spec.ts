import { test, expect } from "@playwright/test";
import { logIn, logOut } from "../helpers/accounts";
import { auth, joinAs, registerUser } from "../helpers/live";

test.describe.configure({ timeout: 90_000 });

test("the Files page lists the organization's files with the space used, uploads by button and by drop, downloads, and deletes after a confirmation; viewers only read", async ({ page, request }, testInfo) => {
  const owner = await registerUser(request, "files-owner");
  // A file a program put there (PUT with the raw bytes).
  const put = await request.put("/api/v1/files/data/hello.txt", { headers: { ...auth(owner), "content-type": "application/octet-stream" }, data: Buffer.from("hello from the API") });
  expect(put.status()).toBe(201);

  await logIn(page, owner.email);
  await page.getByRole("link", { name: "Files" }).first().click();
  await expect(page).toHaveURL(/\/files$/);
  await expect(page.getByRole("heading", { level: 1, name: "Files" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Files" })).toHaveAttribute("aria-current", "page");
  const table = page.getByRole("table");
  await expect(table.getByRole("row", { name: /data\/hello\.txt/ })).toContainText("18 B");
  await expect(page.getByText(/Space used: 18 B of 100 MiB/)).toBeVisible();

  // Upload with the button (the file chooser), into a folder.
  await page.getByLabel("Folder (optional)").fill("uploads");
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /Drop files here, or choose files/ }).click();
  await (await chooser).setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("chosen file") });
  await expect(page.getByRole("status")).toHaveText("Uploaded uploads/notes.txt.");
  await expect(table.getByRole("row", { name: /uploads\/notes\.txt/ })).toContainText("11 B");

  // Upload by dropping a file on the drop zone.
  await page.getByLabel("Folder (optional)").fill("");
  const transfer = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array([0, 1, 2, 3, 255])], "dropped.bin", { type: "application/octet-stream" }));
    return dt;
  });
  await page.getByRole("button", { name: /Drop files here/ }).dispatchEvent("drop", { dataTransfer: transfer });
  await expect(page.getByRole("status")).toHaveText("Uploaded dropped.bin.");
  await expect(table.getByRole("row", { name: /dropped\.bin/ })).toContainText("5 B");
  const dropped = await request.get("/api/v1/files/dropped.bin", { headers: auth(owner) });
  expect([...(await dropped.body())]).toEqual([0, 1, 2, 3, 255]);

  // A path that would leave the files is refused before anything is sent.
  await page.getByLabel("Folder (optional)").fill("..");
  const chooser2 = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /Drop files here/ }).focus();
  await page.keyboard.press("Enter");
  await (await chooser2).setFiles({ name: "escape.txt", mimeType: "text/plain", buffer: Buffer.from("x") });
  // (Next's route announcer is an alert too: the one that says it.)
  await expect(page.getByRole("alert").filter({ hasText: "must stay inside the organization's files" })).toBeVisible();
  await page.getByLabel("Folder (optional)").fill("");

  // Download: the browser's own session fetches the bytes.
  const download = page.waitForEvent("download");
  await table.getByRole("link", { name: "Download uploads/notes.txt" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("notes.txt");
  const fs = await import("node:fs");
  expect(fs.readFileSync((await file.path())!, "utf8")).toBe("chosen file");

  await page.screenshot({ path: testInfo.outputPath("files-page.png"), fullPage: true });

  // Delete, after the confirmation dialog.
  await table.getByRole("button", { name: "Delete data/hello.txt" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Delete the file “data/hello.txt”?");
  await dialog.getByRole("button", { name: "Delete file" }).click();
  await expect(table.getByRole("row", { name: /data\/hello\.txt/ })).toHaveCount(0);
  expect((await request.get("/api/v1/files/data/hello.txt", { headers: auth(owner) })).status()).toBe(404);

  // A viewer sees and downloads, but has no upload and no delete.
  const viewer = await joinAs(request, owner, "viewer", "files-viewer");
  await logOut(page);
  await logIn(page, viewer.email);
  await page.goto("/files");
  await expect(page.getByRole("table").getByRole("row", { name: /uploads\/notes\.txt/ })).toBeVisible();
  await expect(page.getByRole("button", { name: /Drop files here/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Delete / })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Download uploads/notes.txt" })).toBeVisible();
});
