"use client";

import { Choice } from "@/components/field";
import { apiKeyScopeDescriptions, type ApiKeyScope } from "@/shared/permissions";

export type KeyKind = "user" | "device";

const KINDS: ReadonlyArray<{ kind: KeyKind; label: string; hint: string }> = [
  { kind: "user", label: "User key", hint: "Calls the REST API as you." },
  { kind: "device", label: "Device key", hint: "Connects a device over the WebSocket." },
];

/** What a scope lets a key do (one short line per scope, beside the permission table). */
function scopeDescription(scope: ApiKeyScope): string {
  return apiKeyScopeDescriptions[scope];
}

function sentenceCase(text: string): string {
  return text ? `${text[0]!.toUpperCase()}${text.slice(1)}.` : text;
}

/** User or device key (offered to those who may create device keys). */
export function KindFieldset({ kind, onChange }: { kind: KeyKind; onChange: (kind: KeyKind) => void }) {
  return (
    <fieldset>
      <legend>Kind</legend>
      <div className="choices">
        {KINDS.map((k) => (
          <Choice
            key={k.kind}
            id={`key-kind-${k.kind}`}
            type="radio"
            name="key-kind"
            checked={kind === k.kind}
            onChange={() => onChange(k.kind)}
            label={k.label}
            hint={k.hint}
          />
        ))}
      </div>
    </fieldset>
  );
}

/** The scopes the role may grant for the kind, each with what it allows. */
export function ScopesFieldset({
  available,
  chosen,
  onToggle,
  error,
}: {
  available: readonly ApiKeyScope[];
  chosen: ReadonlySet<ApiKeyScope>;
  onToggle: (scope: ApiKeyScope, on: boolean) => void;
  error?: string;
}) {
  return (
    <fieldset aria-describedby={error ? "key-scopes-error" : undefined}>
      <legend>Scopes</legend>
      <ul className="scopes">
        {available.map((scope) => (
          <Choice
            key={scope}
            as="li"
            id={`scope-${scope.replace(":", "-")}`}
            type="checkbox"
            checked={chosen.has(scope)}
            onChange={(e) => onToggle(scope, e.target.checked)}
            label={<code>{scope}</code>}
            hint={sentenceCase(scopeDescription(scope))}
          />
        ))}
      </ul>
      {error ? (
        <p id="key-scopes-error" className="error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
