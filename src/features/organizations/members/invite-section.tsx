"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { Card } from "@/components/card";
import { Field, SelectField } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
import { errorInfo, useInvalidate, useTRPC } from "@/trpc/react";
import type { Role } from "@/shared/permissions";
import { asRole, assignableRoles, roleDescriptions, roleLabels } from "../roles";
import type { Viewer } from "./viewer";

/** Invites someone by email with a role up to the viewer's own. */
export function InviteSection({ viewer }: { viewer: Viewer }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const roles = assignableRoles(viewer.role);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const invite = useMutation(
    trpc.organizations.invite.mutationOptions({
      onSuccess: () => {
        setEmail("");
        return invalidate(trpc.organizations.invitations.queryKey());
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    invite.mutate({ id: viewer.organizationId, email, role });
  }

  const info = invite.error ? errorInfo(invite.error) : null;
  const emailError = info?.code === "EMAIL_TAKEN" ? "This person is a member already." : fieldMessage("Email", info?.fields.email);
  const alert =
    info?.code === "FORBIDDEN"
      ? `You cannot invite someone as ${roleLabels[role].toLowerCase()}: nobody grants a role above their own.`
      : invite.error && !emailError
        ? commonErrorMessage(invite.error)
        : null;
  return (
    <Card headingId="invite-heading" title="Invite a member">
      <p className="hint">We email them a link that is valid for 7 days. They join when they accept it, signed in with this address.</p>
      <form method="post" onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        {invite.isSuccess ? <Alert kind="ok">Invitation sent to {invite.data.invitation.email}.</Alert> : null}
        <div className="field-row">
          <Field
            id="invite-email"
            label="Email"
            type="email"
            autoComplete="off"
            required
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              if (invite.isError) invite.reset();
            }}
            error={emailError}
          />
          <SelectField
            id="invite-role"
            label="Role"
            options={roles}
            optionLabels={roleLabels}
            value={role}
            onChange={(e) => setRole(asRole(e.target.value))}
            hint={`${roleLabels[role]}: ${roleDescriptions[role]}.`}
          />
        </div>
        <FormFooter>
          <SubmitButton pending={invite.isPending} pendingLabel="Sending…">
            Send invitation
          </SubmitButton>
        </FormFooter>
      </form>
    </Card>
  );
}
