"use client";

import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { Field } from "@/components/field";
import { errorInfo, useTRPC } from "@/trpc/react";
import { NAME_MAX_CHARS } from "@/shared/policy";

/** `New flow`: a name, then straight into the editor. */
export function NewFlowDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [name, setName] = useState("");
  const create = useMutation(trpc.flows.create.mutationOptions({ onSuccess: ({ flow }) => router.push(`/flows/${flow.id}`) }));
  const info = create.error ? errorInfo(create.error) : null;
  const nameError = info?.fields.name;

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name });
  }

  return (
    <Dialog title="New flow" open={open} onClose={onClose}>
      <form method="post" onSubmit={onSubmit}>
        {info && !nameError ? <Alert kind="error">{info.message}</Alert> : null}
        <Field id="new-flow-name" label="Name" required maxLength={NAME_MAX_CHARS} value={name} onChange={(e) => setName(e.target.value)} error={nameError ? `Name ${nameError}.` : undefined} autoFocus />
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={create.isPending || create.isSuccess}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}
