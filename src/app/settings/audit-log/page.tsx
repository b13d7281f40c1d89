import type { Metadata } from "next";
import { AuditLog } from "@/features/organizations/audit-log";
import { can } from "@/features/organizations/roles";
import { requireSettings } from "@/features/settings/current-settings";
import { SettingsShell } from "@/features/settings/settings-shell";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditLogPage() {
  const { profile, role, organizationId, prefs } = await requireSettings("/settings/audit-log");
  return (
    <SettingsShell profile={profile} active="audit-log" title="Audit log">
      {can(role, "audit:read") ? (
        <AuditLog organizationId={organizationId} prefs={prefs} />
      ) : (
        <section className="card">
          <p>
            Only admins and owners can see the audit log of {profile.organization.name}. If you need it, ask an owner to
            make you an admin.
          </p>
        </section>
      )}
    </SettingsShell>
  );
}
