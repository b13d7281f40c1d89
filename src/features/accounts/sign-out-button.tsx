"use client";

import { useState } from "react";
import { signOut } from "next-auth/react";

/** Ends the session on the server (next-auth's signOut event revokes it) and returns to the login page. */
export function SignOutButton({ className = "secondary" }: { className?: string }) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className={className}
      disabled={pending}
      onClick={() => {
        setPending(true);
        void signOut({ callbackUrl: "/login" }).catch(() => setPending(false));
      }}
    >
      Log out
    </button>
  );
}
