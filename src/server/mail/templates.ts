import type { MailMessage } from "./mailer";

export type MailContent = Omit<MailMessage, "to">;

const PRODUCT = "Flowplane";

export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function formatWhen(when: Date): string {
  return `${when.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function greeting(firstName: string | undefined): string {
  return firstName?.trim() ? `Hello ${firstName.trim()},` : "Hello,";
}

/** Builds text and HTML from the same paragraphs; `link` becomes a button in HTML and a line in text. */
function compose(options: { subject: string; firstName?: string; paragraphs: string[]; link?: { url: string; label: string }; after?: string[] }): MailContent {
  const { subject, paragraphs, link, after = [] } = options;
  const hello = greeting(options.firstName);
  const textParts = [hello, ...paragraphs];
  if (link) textParts.push(`${link.label}:\n${link.url}`);
  textParts.push(...after, `— The ${PRODUCT} team`);

  const p = (t: string) => `<p style="margin:0 0 16px">${escapeHtml(t)}</p>`;
  const htmlParts = [p(hello), ...paragraphs.map(p)];
  if (link) {
    const href = escapeHtml(link.url);
    htmlParts.push(
      `<p style="margin:0 0 16px"><a href="${href}" style="display:inline-block;padding:10px 18px;background:#2563eb;color:#ffffff;border-radius:6px;text-decoration:none">${escapeHtml(link.label)}</a></p>`,
      `<p style="margin:0 0 16px;font-size:13px;color:#555555">If the button does not work, copy this address into your browser:<br><a href="${href}">${href}</a></p>`,
    );
  }
  htmlParts.push(...after.map(p), p(`— The ${PRODUCT} team`));
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:15px;line-height:1.5;color:#111111;max-width:560px;margin:0 auto;padding:24px">${htmlParts.join("")}</body></html>`;
  return { subject, text: `${textParts.join("\n\n")}\n`, html };
}

export function verifyEmailMail(options: { firstName: string; link: string }): MailContent {
  return compose({
    subject: `Confirm your email address for ${PRODUCT}`,
    firstName: options.firstName,
    paragraphs: [`Thanks for signing up for ${PRODUCT}. Please confirm your email address to finish setting up your account.`],
    link: { url: options.link, label: "Confirm email address" },
    after: ["If you did not create an account, you can ignore this email."],
  });
}

export function passwordResetMail(options: { firstName: string; link: string; expiresInMinutes: number }): MailContent {
  return compose({
    subject: `Reset your ${PRODUCT} password`,
    firstName: options.firstName,
    paragraphs: [
      `Someone asked to reset the password of your ${PRODUCT} account. If it was you, choose a new password with the link below. The link works once and expires in ${options.expiresInMinutes} minutes.`,
    ],
    link: { url: options.link, label: "Choose a new password" },
    after: ["If you did not ask for this, you can ignore this email: your password stays the same."],
  });
}

export function passwordChangedMail(options: { firstName: string; when: Date; ip?: string | null }): MailContent {
  const from = options.ip ? ` from the IP address ${options.ip}` : "";
  return compose({
    subject: `Your ${PRODUCT} password was changed`,
    firstName: options.firstName,
    paragraphs: [
      `The password of your ${PRODUCT} account was changed on ${formatWhen(options.when)}${from}. Your other sessions were signed out.`,
      "If you did not make this change, reset your password right away and contact your administrator.",
    ],
  });
}

export function mfaChangedMail(options: { firstName: string; enabled: boolean; when: Date; ip?: string | null }): MailContent {
  const from = options.ip ? ` from the IP address ${options.ip}` : "";
  const what = options.enabled ? "turned on" : "turned off";
  return compose({
    subject: `Two-factor authentication was ${what} for your ${PRODUCT} account`,
    firstName: options.firstName,
    paragraphs: [
      `Two-factor authentication was ${what} for your ${PRODUCT} account on ${formatWhen(options.when)}${from}.`,
      options.enabled
        ? "From now on, signing in needs a code from your authenticator app or one of your backup codes. Keep the backup codes somewhere safe."
        : "Signing in now needs only your password. We recommend turning two-factor authentication back on.",
      "If you did not make this change, reset your password right away and contact your administrator.",
    ],
  });
}

export function invitationMail(options: { organizationName: string; inviterName: string; role: string; link: string }): MailContent {
  return compose({
    subject: `${options.inviterName} invited you to ${options.organizationName} on ${PRODUCT}`,
    paragraphs: [`${options.inviterName} invited you to join the organization "${options.organizationName}" on ${PRODUCT} with the ${options.role} role.`],
    link: { url: options.link, label: "Accept the invitation" },
    after: ["If you do not want to join, you can ignore this email."],
  });
}
