"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useDisclosure } from "@/components/use-disclosure";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { asRole, roleLabels } from "./roles";
import { switchOrganizationAndGo } from "./switch-organization";
import type { MyOrganization } from "./types";

/**
 * The header's organization menu: a disclosure button naming the current organization, opening a
 * list of the user's organizations (a button per other one switches to it) and "Create organization".
 */
export function OrganizationSwitcher({ initialOrganizations }: { initialOrganizations: MyOrganization[] }) {
  const trpc = useTRPC();
  const { data } = useQuery({ ...trpc.organizations.list.queryOptions(), initialData: { organizations: initialOrganizations } });
  const organizations = data?.organizations ?? initialOrganizations;
  const current = organizations.find((o) => o.current);
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  // Escape closes the list (and not the phone's menu around it: useDisclosure marks it handled).
  const { toggleProps, panelId: menuId, onKeyDown } = useDisclosure(open, setOpen);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  async function switchTo(org: MyOrganization) {
    setPending(org.id);
    setError(null);
    const result = await switchOrganizationAndGo(org.id);
    if (!result.ok) {
      setPending(null);
      setError(result.message);
    }
  }

  return (
    <div className="org-switcher" ref={root} onKeyDown={onKeyDown}>
      <button {...toggleProps} className="org-switcher-toggle">
        <span className="org-switcher-label">Organization</span>{" "}
        <span className="org-switcher-name">{current?.name ?? "Choose…"}</span>
        <span aria-hidden="true" className="org-switcher-caret">
          ▾
        </span>
      </button>
      <div id={menuId} className="org-menu" hidden={!open}>
        <p className="org-menu-heading" id={`${menuId}-heading`}>
          Your organizations
        </p>
        <ul aria-labelledby={`${menuId}-heading`}>
          {organizations.map((org) => (
            <li key={org.id}>
              {org.current ? (
                <span className="org-menu-item current" aria-current="true">
                  <span className="org-menu-name">{org.name}</span>
                  <span className="org-menu-role">{roleLabels[asRole(org.role)]} · current</span>
                </span>
              ) : (
                <button
                  type="button"
                  className="org-menu-item"
                  aria-label={`Switch to ${org.name}`}
                  disabled={pending !== null}
                  onClick={() => void switchTo(org)}
                >
                  <span className="org-menu-name">{org.name}</span>
                  <span className="org-menu-role">{pending === org.id ? "Switching…" : roleLabels[asRole(org.role)]}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
        {error ? (
          <p role="alert" className="error org-menu-error">
            {error}
          </p>
        ) : null}
        <Link href="/settings/organization#create-organization" className="org-menu-create" onClick={() => setOpen(false)}>
          Create organization
        </Link>
      </div>
    </div>
  );
}
