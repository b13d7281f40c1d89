"use client";

import type { DisplayPrefs } from "@/features/settings/format";
import type { Role } from "@/shared/permissions";
import { CreateKeySection } from "./api-keys/create-key-section";
import { KeysSection } from "./api-keys/keys-section";
import type { ApiKey } from "./types";

/** The API keys page: the form for a new key, then the keys. */
export function ApiKeysSettings({ role, prefs, initialKeys }: { role: Role; prefs: DisplayPrefs; initialKeys: ApiKey[] }) {
  return (
    <>
      <CreateKeySection role={role} />
      <KeysSection role={role} prefs={prefs} initialKeys={initialKeys} />
    </>
  );
}
