"use client";

import type { PresenceUser } from "@/shared/realtime";

function initials(name: string) {
  const parts = name.replace(/@.*/, "").split(/[\s._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}

/** Who else has this flow open (the signed-in user is left out). */
export function PresenceAvatars({ users, me }: { users: PresenceUser[]; me: string | null }) {
  const others = users.filter((u) => u.user_id !== me);
  if (others.length === 0) return null;
  const names = others.map((u) => u.name).join(", ");
  return (
    <div className="presence" role="group" aria-label={`Also editing: ${names}`}>
      {others.slice(0, 5).map((u) => (
        <span key={u.user_id} className="avatar" title={u.name} aria-hidden="true">
          {initials(u.name)}
        </span>
      ))}
      {others.length > 5 && <span className="avatar more" aria-hidden="true">+{others.length - 5}</span>}
      <span className="visually-hidden">Also editing: {names}</span>
    </div>
  );
}
