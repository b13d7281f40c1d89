"use client";

import Link from "next/link";
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { Alert } from "@/components/alert";
import { commonErrorMessage } from "@/features/accounts/messages";
import { errorInfo, useTRPC } from "@/trpc/react";
import { asRole, roleLabels } from "./roles";
import { switchOrganizationAndGo } from "./switch-organization";

function acceptErrorMessage(error: unknown): string {
  const info = errorInfo(error);
  switch (info.code) {
    case "FORBIDDEN":
      return "This invitation was sent to another email address. Sign in with that account.";
    case "TOKEN_EXPIRED":
      return "This invitation has expired. Ask the person who invited you to send a new one.";
    case "TOKEN_INVALID":
    case "VALIDATION_FAILED":
      return "This invitation is not valid: it may have been used already or revoked. Ask for a new one if you still need to join.";
    default:
      return commonErrorMessage(error) ?? "Something went wrong. Please try again.";
  }
}

/** Accepting a mailed invitation as the signed-in user, then (optionally) switching to the organization. */
export function InvitationAccept({ token, email, callbackPath }: { token: string | null; email: string; callbackPath: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const accept = useMutation(
    trpc.organizations.acceptInvitation.mutationOptions({
      // The header's organization menu lists the new organization at once.
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.organizations.list.queryKey() }),
    }),
  );
  const [switching, setSwitching] = useState(false);
  const [switchError, setSwitchError] = useState<string | null>(null);

  if (!token) {
    return (
      <Alert kind="error">
        This invitation link is incomplete. Open the link from the invitation email again, or copy the whole address into
        your browser.
      </Alert>
    );
  }

  if (accept.isSuccess) {
    const { organization, role } = accept.data;
    return (
      <section className="card" aria-labelledby="joined-heading">
        <h2 id="joined-heading">Welcome to {organization.name}</h2>
        <Alert kind="ok">
          You joined <strong>{organization.name}</strong> as {roleLabels[asRole(role)].toLowerCase()}.
        </Alert>
        {switchError ? <Alert kind="error">{switchError}</Alert> : null}
        <div className="actions">
          <button
            type="button"
            disabled={switching}
            onClick={async () => {
              setSwitching(true);
              setSwitchError(null);
              const result = await switchOrganizationAndGo(organization.id, "/settings/members");
              if (!result.ok) {
                setSwitching(false);
                setSwitchError(result.message);
              }
            }}
          >
            {switching ? "Switching…" : `Switch to ${organization.name}`}
          </button>
          <Link href="/settings/organization" className="button secondary">
            Stay in your current organization
          </Link>
        </div>
      </section>
    );
  }

  const info = accept.error ? errorInfo(accept.error) : null;
  const wrongAccount = info?.code === "FORBIDDEN";
  return (
    <section className="card" aria-labelledby="invitation-heading">
      <h2 id="invitation-heading">You&apos;ve been invited to join an organization</h2>
      {accept.error ? <Alert kind="error">{acceptErrorMessage(accept.error)}</Alert> : null}
      <p>
        You are signed in as <strong>{email}</strong>. Accepting adds this account to the organization that invited
        you, with the role chosen in the invitation.
      </p>
      <div className="actions">
        {wrongAccount ? (
          <button type="button" onClick={() => void signOut({ callbackUrl: `/login?callbackUrl=${encodeURIComponent(callbackPath)}` })}>
            Log out and use another account
          </button>
        ) : (
          <button type="button" disabled={accept.isPending} onClick={() => accept.mutate({ token })}>
            {accept.isPending ? "Accepting…" : "Accept invitation"}
          </button>
        )}
      </div>
    </section>
  );
}
