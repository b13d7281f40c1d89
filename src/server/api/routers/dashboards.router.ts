import { z } from "zod";
import { authedProcedure, publicProcedure, requestMeta, router } from "../trpc";
import {
  createdDashboardShareLinkSchema,
  createDashboardShareLinkInput,
  dashboardPageSummarySchema,
  dashboardPageViewSchema,
  dashboardShareLinkSchema,
} from "../../../shared/dashboard";
import { createShareLink, getDashboardPage, listDashboardPages, listShareLinks, revokeShareLink } from "../../services/dashboards/dashboards";

const tags = ["dashboards"];

const pageListEntry = dashboardPageSummarySchema.extend({
  ui: z.object({ id: z.string(), name: z.string() }),
  url: z.string(),
  groups: z.array(z.object({ id: z.string(), name: z.string(), order: z.number().int(), width: z.number().int() })),
});

/** SPEC §21: dashboards. The pages themselves live at /dashboard/{org}/{path} and on the dashboard socket. */
export const dashboardsRouter = router({
  /**
   * The page dashui paints first: a member of the organization (any role, whatever organization
   * their session is on), an API key of that organization with `flows:read` (as `dashboards.list`;
   * without it 403), or a share link's visitor (`share`); anyone else 404 (no credentials: 401).
   */
  page: publicProcedure
    .meta({ summary: "A dashboard page as its viewer sees it (first paint)", tags })
    .input(
      z.object({
        org_slug: z.string().min(1).max(100),
        path: z.string().min(1).max(200).startsWith("/"),
        share: z.string().min(1).max(200).optional(),
      }),
    )
    .output(dashboardPageViewSchema)
    .query(({ ctx, input }) => getDashboardPage(ctx.services, input, { credentials: ctx.credentials })),

  list: authedProcedure
    .meta({
      permission: "dashboards:read",
      rest: { method: "GET", path: "/dashboards/pages" },
      summary: "The organization's deployed dashboard pages, with their groups and URL",
      description: "Pages show what is deployed: the ui-page configuration nodes of running deployments, each dashboard's (ui-base) in navigation order.",
      tags,
    })
    .input(z.object({}).optional())
    .output(z.object({ pages: z.array(pageListEntry) }))
    .query(({ ctx }) => listDashboardPages(ctx.services, ctx.principal)),

  shareLinks: authedProcedure
    .meta({ permission: "dashboards:share", rest: { method: "GET", path: "/dashboards/share-links" }, summary: "Share links of the organization's dashboard pages (admins)", description: "`url` is the page's address: the token was shown once, when the link was created, and is not kept.", tags })
    .input(z.object({}).optional())
    .output(z.object({ share_links: z.array(dashboardShareLinkSchema) }))
    .query(({ ctx }) => listShareLinks(ctx.services, ctx.principal)),

  createShareLink: authedProcedure
    .meta({
      permission: "dashboards:share",
      rest: { method: "POST", path: "/dashboards/share-links", status: 201 },
      summary: "Publish a dashboard page through a share link (admins)",
      description:
        "`page_id` is a ui-page configuration node of the organization. The answer's `token` (and the `url` holding it) is shown once: only its hash is kept. View-only unless `interactive`: a view-only visitor's inputs are refused.",
      tags,
    })
    .input(createDashboardShareLinkInput)
    .output(z.object({ share_link: createdDashboardShareLinkSchema }))
    .mutation(({ ctx, input }) => createShareLink(ctx.services, ctx.principal, input, requestMeta(ctx))),

  revokeShareLink: authedProcedure
    .meta({
      permission: "dashboards:share",
      rest: { method: "DELETE", path: "/dashboards/share-links/{id}", status: 204 },
      summary: "Revoke a share link (admins): its token stops working and its open pages close within 2 s",
      tags,
    })
    .input(z.object({ id: z.string().regex(/^dsh_[A-Za-z0-9_-]{22}$/, "not a share link id") }))
    .output(z.void())
    .mutation(({ ctx, input }) => revokeShareLink(ctx.services, ctx.principal, input.id, requestMeta(ctx))),
});
