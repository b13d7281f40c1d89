import { describe, expect, it } from "vitest";
import { dashboardPageOfHref } from "./page-links";

const pages = ["/page1", "/audit-log", "/data-entry", "/reports/daily"];

describe("dashboardPageOfHref: Dashboard 2.0's page URLs", () => {
  it("an absolute link under the ui-base's path is the page (FlowFuse's Getting Started blueprint: /dashboard/audit-log)", () => {
    expect(dashboardPageOfHref("/dashboard/audit-log", "/dashboard", "/page1", pages)).toBe("/audit-log");
    expect(dashboardPageOfHref("/dashboard/data-entry/", "/dashboard", "/page1", pages)).toBe("/data-entry");
    expect(dashboardPageOfHref("/dashboard/reports/daily?shift=1#top", "/dashboard", "/page1", pages)).toBe("/reports/daily");
    expect(dashboardPageOfHref("/ops/audit-log", "/ops/", "/page1", pages)).toBe("/audit-log");
  });

  it("a relative link resolves from the page it is on, as the browser resolves it there", () => {
    expect(dashboardPageOfHref("audit-log", "/dashboard", "/page1", pages)).toBe("/audit-log");
    expect(dashboardPageOfHref("./data-entry", "/dashboard", "/page1", pages)).toBe("/data-entry");
    expect(dashboardPageOfHref("daily", "/dashboard", "/reports/weekly", pages)).toBe("/reports/daily");
    expect(dashboardPageOfHref("../page1", "/dashboard", "/reports/daily", pages)).toBe("/page1");
  });

  it("anything else is not a page: other sites, other paths, unknown pages, fragments", () => {
    expect(dashboardPageOfHref("https://flowfuse.com/dashboard/audit-log", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("//evil.example/dashboard/audit-log", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("/admin/audit-log", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("/dashboard/nowhere", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("/dashboardaudit-log", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("#top", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("mailto:ops@example.com", "/dashboard", "/page1", pages)).toBeNull();
    expect(dashboardPageOfHref("/dashboard/%E0%A4%A", "/dashboard", "/page1", pages)).toBeNull();
  });
});
