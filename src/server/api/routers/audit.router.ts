import { authedProcedure, router } from "../trpc";
import { listAuditLog, listAuditLogInput, listAuditLogOutput } from "../../services/audit/list-audit-log";

export const auditRouter = router({
  list: authedProcedure
    .meta({ permission: "audit:read", rest: { method: "GET", path: "/audit-log" }, summary: "The organization's audit log, newest first (admin+)", tags: ["audit"] })
    .input(listAuditLogInput)
    .output(listAuditLogOutput)
    .query(({ ctx, input }) => listAuditLog(ctx.services, ctx.principal, input)),
});
