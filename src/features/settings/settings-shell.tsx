import Link from "next/link";
import type { ReactNode } from "react";
import { SignedInHeader } from "@/features/accounts/signed-in-header";
import type { CurrentProfile } from "@/features/accounts/current-user";
import { asRole, roleLabels } from "@/features/organizations/roles";

export type SettingsSection = "organization" | "members" | "api-keys" | "variables" | "files" | "audit-log" | "account";

const sections: { key: SettingsSection; href: string; label: string }[] = [
  { key: "organization", href: "/settings/organization", label: "Organization" },
  { key: "members", href: "/settings/members", label: "Members" },
  { key: "api-keys", href: "/settings/api-keys", label: "API keys" },
  { key: "variables", href: "/settings/variables", label: "Variables" },
  { key: "files", href: "/files", label: "Files" },
  { key: "audit-log", href: "/settings/audit-log", label: "Audit log" },
  { key: "account", href: "/account/security", label: "Account security" },
];

export function SettingsNav({ active }: { active: SettingsSection }) {
  return (
    <nav aria-label="Settings" className="settings-nav">
      <ul>
        {sections.map((s) => (
          <li key={s.key}>
            <Link href={s.href} aria-current={s.key === active ? "page" : undefined}>
              {s.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A settings page: the signed-in header, the settings navigation, and the page under its one h1. */
export function SettingsShell({
  profile,
  active,
  title,
  intro,
  children,
}: {
  profile: CurrentProfile;
  active: SettingsSection;
  title: string;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <SignedInHeader email={profile.user.email} />
      <div className="settings-layout">
        <SettingsNav active={active} />
        <main className="settings">
          <h1>{title}</h1>
          <p className="lead">
            {intro ?? (
              <>
                {profile.organization.name} · <span className="muted">{roleLabels[asRole(profile.role)]}</span>
              </>
            )}
          </p>
          {children}
        </main>
      </div>
    </>
  );
}
