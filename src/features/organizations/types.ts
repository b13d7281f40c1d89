import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/trpc/types";

type Outputs = inferRouterOutputs<AppRouter>;

export type MyOrganization = Outputs["organizations"]["list"]["organizations"][number];
export type Organization = Outputs["organizations"]["get"]["organization"];
export type Member = Outputs["organizations"]["members"]["members"][number];
export type Invitation = Outputs["organizations"]["invitations"]["invitations"][number];
export type ApiKey = Outputs["apiKeys"]["list"]["api_keys"][number];
export type AuditEntry = Outputs["audit"]["list"]["entries"][number];
export type Variable = Outputs["variables"]["list"]["variables"][number];
