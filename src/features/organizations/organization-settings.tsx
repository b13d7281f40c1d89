"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { Field } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
import type { DisplayPrefs } from "@/features/settings/format";
import { formatDate } from "@/features/settings/format";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { Role } from "@/shared/permissions";
import { can, roleLabels } from "./roles";
import { switchOrganization, switchOrganizationAndGo } from "./switch-organization";
import type { MyOrganization, Organization } from "./types";

function DetailsSection({ organization, role, prefs }: { organization: Organization; role: Role; prefs: DisplayPrefs }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data } = useQuery({ ...trpc.organizations.get.queryOptions({ id: organization.id }), initialData: { organization } });
  const org = data?.organization ?? organization;
  const [name, setName] = useState(org.name);
  const rename = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: async (result) => {
        queryClient.setQueryData(trpc.organizations.get.queryKey({ id: result.organization.id }), result);
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.list.queryKey() });
        // The header and the page's lead name the organization too.
        router.refresh();
      },
    }),
  );
  const canRename = can(role, "org:update");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    rename.mutate({ id: org.id, name });
  }

  const info = rename.error ? errorInfo(rename.error) : null;
  const nameError = fieldMessage("Organization name", info?.fields.name);
  const alert = rename.error && !nameError ? commonErrorMessage(rename.error) : null;
  return (
    <section className="card" aria-labelledby="org-details-heading">
      <h2 id="org-details-heading">Details</h2>
      <dl className="details">
        {canRename ? null : (
          <>
            <dt>Name</dt>
            <dd>{org.name}</dd>
          </>
        )}
        <dt>URL name</dt>
        <dd>
          <code>{org.slug}</code>
        </dd>
        <dt>Plan</dt>
        <dd className="capitalize">{org.plan}</dd>
        <dt>Your role</dt>
        <dd>{roleLabels[role]}</dd>
        <dt>Created</dt>
        <dd>{formatDate(prefs, org.created_at)}</dd>
        <dt id="org-id-label">Organization ID</dt>
        <dd aria-labelledby="org-id-label">
          <code>{org.id}</code>
        </dd>
      </dl>
      {canRename ? (
        <form method="post" onSubmit={onSubmit} className="inline-form">
          {alert ? <Alert kind="error">{alert}</Alert> : null}
          <Field
            id="org-name"
            label="Organization name"
            required
            maxLength={100}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              rename.reset();
            }}
            error={nameError}
          />
          <FormFooter status={rename.isSuccess ? "Saved." : ""}>
            <SubmitButton pending={rename.isPending} pendingLabel="Saving…" disabled={name.trim() === org.name}>
              Rename organization
            </SubmitButton>
          </FormFooter>
        </form>
      ) : (
        <p className="hint">Only owners can rename the organization.</p>
      )}
    </section>
  );
}

function CreateSection() {
  const trpc = useTRPC();
  const [form, setForm] = useState({ name: "", slug: "" });
  const [switchError, setSwitchError] = useState<string | null>(null);
  const create = useMutation(trpc.organizations.create.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSwitchError(null);
    let created;
    try {
      created = await create.mutateAsync({ name: form.name, slug: form.slug.trim() || undefined });
    } catch {
      return; // shown from create.error
    }
    const result = await switchOrganizationAndGo(created.organization.id, "/settings/organization");
    if (!result.ok) setSwitchError(`${created.organization.name} was created, but we could not switch to it: ${result.message}`);
  }

  const info = create.error ? errorInfo(create.error) : null;
  const slugError =
    info?.code === "SLUG_TAKEN" ? "This URL name is taken. Choose another." : fieldMessage("URL name", info?.fields.slug);
  const nameError = fieldMessage("Name", info?.fields.name);
  const alert = create.error && !slugError && !nameError ? commonErrorMessage(create.error) : null;
  const busy = create.isPending || (create.isSuccess && !switchError);
  return (
    <section className="card" id="create-organization" aria-labelledby="create-org-heading">
      <h2 id="create-org-heading">Create an organization</h2>
      <p className="hint">You become its owner, and we switch you to it. Your other organizations stay as they are.</p>
      <form method="post" onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        {switchError ? <Alert kind="error">{switchError}</Alert> : null}
        <div className="field-row">
          <Field
            id="new-org-name"
            label="Name"
            required
            maxLength={100}
            value={form.name}
            onChange={(e) => setForm((f) => ({ ...f, name: e.target.value }))}
            error={nameError}
          />
          <Field
            id="new-org-slug"
            label="URL name"
            hint="Optional: lowercase letters, digits and dashes. Made from the name when empty."
            autoCapitalize="none"
            spellCheck={false}
            maxLength={48}
            value={form.slug}
            onChange={(e) => setForm((f) => ({ ...f, slug: e.target.value }))}
            error={slugError}
          />
        </div>
        <FormFooter>
          <SubmitButton pending={busy} pendingLabel="Creating…">
            Create organization
          </SubmitButton>
        </FormFooter>
      </form>
    </section>
  );
}

function DeleteSection({ organization, organizations }: { organization: Organization; organizations: MyOrganization[] }) {
  const trpc = useTRPC();
  const [confirm, setConfirm] = useState("");
  const [after, setAfter] = useState<"idle" | "leaving">("idle");
  const others = organizations.filter((o) => o.id !== organization.id);
  const remove = useMutation(
    trpc.organizations.delete.mutationOptions({
      onSuccess: async () => {
        setAfter("leaving");
        // This session belonged to the deleted organization: move to another one, or sign out.
        const next = others[0];
        if (next && (await switchOrganization(next.id)).ok) {
          window.location.assign("/settings/organization");
          return;
        }
        await signOut({ callbackUrl: "/login" });
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (confirm.trim() !== organization.slug) return;
    remove.mutate({ id: organization.id });
  }

  const onlyOne = others.length === 0;
  const busy = remove.isPending || after === "leaving";
  return (
    <section className="card danger-zone" aria-labelledby="delete-org-heading">
      <h2 id="delete-org-heading">Delete organization</h2>
      <p>
        Deleting <strong>{organization.name}</strong> removes it for every member at once: its flows stop, its API keys
        are revoked and pending invitations stop working. This cannot be undone.
      </p>
      {onlyOne ? (
        <Alert kind="info">
          This is your only organization, and your account needs one to log in. Create another organization first, or
          delete your whole account from <Link href="/account/security">Account security</Link>.
        </Alert>
      ) : (
        <form method="post" onSubmit={onSubmit}>
          {remove.error ? <Alert kind="error">{commonErrorMessage(remove.error)}</Alert> : null}
          <Field
            id="delete-org-confirm"
            label={`Type ${organization.slug} to confirm`}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
          />
          <FormFooter>
            <SubmitButton className="danger" pending={busy} pendingLabel="Deleting…" disabled={confirm.trim() !== organization.slug}>
              Delete organization
            </SubmitButton>
          </FormFooter>
        </form>
      )}
    </section>
  );
}

export function OrganizationSettings({
  organization,
  organizations,
  role,
  prefs,
}: {
  organization: Organization;
  organizations: MyOrganization[];
  role: Role;
  prefs: DisplayPrefs;
}) {
  return (
    <>
      <DetailsSection organization={organization} role={role} prefs={prefs} />
      {can(role, "org:create") ? <CreateSection /> : null}
      {can(role, "org:delete") ? <DeleteSection organization={organization} organizations={organizations} /> : null}
    </>
  );
}
