import { domainToASCII } from "node:url";
import { referencedNames } from "../../../shared/variable-references";
import { REDACTED } from "../../runtime/variables";
import type { VariableResolver } from "../../runtime/types";

/**
 * What an http-request node says about a request (its error text, its status, msg.error for catch
 * nodes, msg.responseUrl) must never carry a secret its credential properties resolved (issue 40:
 * a URL holding `${SECRET}` failed with "getaddrinfo ENOTFOUND <the value>", and catch →
 * http-response handed it to an anonymous caller). The organization's redactor replaces a secret's
 * exact text where the runtime reports; here every form the request itself may have turned it into
 * is replaced too: lower case (host names), percent-encoded (paths and queries), punycode (an
 * internationalised host name), and base64 inside `Basic` authentication.
 */
export class SecretText {
  private readonly pattern: RegExp | null;

  private constructor(forms: string[]) {
    const unique = [...new Set(forms.filter((f) => f.length > 0))].sort((a, b) => b.length - a.length);
    this.pattern = unique.length === 0 ? null : new RegExp(unique.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
  }

  /**
   * The secrets the node's credential properties resolve to right now: a name whose value differs
   * with and without `credential` is a secret (a secret reads as "" without it).
   */
  static of(env: VariableResolver, texts: string[], basic?: { user: string; password: string }): SecretText {
    const forms: string[] = [];
    for (const text of texts) {
      if (!text.includes("${")) continue;
      for (const name of referencedNames(text)) {
        const ref = `\${${name}}`;
        // (A secret with allowed hosts resolves here too: the request checks its host itself.)
        const value = env.substitute(ref, { credential: true, restricted: new Map() });
        if (value === "" || value === env.substitute(ref)) continue;
        forms.push(value, encodeURIComponent(value), encodeURI(value));
        const ascii = domainToASCII(value);
        if (ascii) forms.push(ascii);
      }
    }
    if (basic && forms.length > 0) forms.push(Buffer.from(`${basic.user}:${basic.password}`).toString("base64"));
    return new SecretText(forms);
  }

  get empty(): boolean {
    return this.pattern === null;
  }

  scrub(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED) : text;
  }
}
