import type { AppServices } from "../../app-services";
import { AppError } from "../../errors";
import { newId, randomHex } from "../../ids";
import { hashPassword } from "../../auth/password-hash";
import { checkPassword } from "../../auth/password-policy";
import { authLimiters, consumeOrThrow } from "../../auth/limits";
import { recordAudit } from "../audit/record-audit";
import type { RegisterInput } from "./account.schemas";
import { userSummaryView } from "./shared";
import type { RequestMeta } from "../request-meta";
import { sendVerificationMail } from "./verify-email";

export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/g, "");
  return base.length >= 3 ? base : `${base || "org"}-${randomHex(3)}`;
}

/** A taken slug made free (almost surely): its first 40 characters and 6 random hex digits. */
export function suffixedSlug(slug: string): string {
  return `${slug.slice(0, 40)}-${randomHex(3)}`;
}

function uniqueViolation(err: unknown): string | null {
  const e = err as { code?: string; meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: string[]; index?: string } } } }; message?: string };
  if (e?.code !== "P2002") return null;
  const text = JSON.stringify(e.meta ?? {}) + (e.message ?? "");
  if (/slug/.test(text)) return "slug";
  if (/email/.test(text)) return "email";
  return "unknown";
}

export async function register(app: AppServices, input: RegisterInput, meta: RequestMeta) {
  if (!app.config.env.REGISTRATION_ENABLED) throw new AppError("REGISTRATION_DISABLED", "registration is disabled on this server");
  await consumeOrThrow(authLimiters(app).registerPerIp, meta.ip);
  if (input.accept_terms !== true) {
    throw new AppError("TERMS_NOT_ACCEPTED", "accept_terms: you must accept the terms of service", {
      details: [{ path: "accept_terms", message: "you must accept the terms of service" }],
    });
  }
  const policy = checkPassword(input.password, { email: input.email, firstName: input.first_name, lastName: input.last_name });
  if (!policy.ok) {
    throw new AppError("VALIDATION_FAILED", `password: ${policy.message}`, { details: [{ path: "password", message: policy.message }] });
  }

  const prisma = app.db.prisma;
  if (await prisma.user.findFirst({ where: { email: input.email, deletedAt: null }, select: { id: true } })) {
    throw new AppError("EMAIL_TAKEN", "an account with this email exists already");
  }
  let slug = input.organization_slug ?? slugify(input.organization_name);
  if (await prisma.organization.findUnique({ where: { slug }, select: { id: true } })) {
    if (input.organization_slug) throw new AppError("SLUG_TAKEN", "organization_slug is taken; choose another");
    slug = suffixedSlug(slug);
  }

  const passwordHash = await hashPassword(input.password, app.config.env.BCRYPT_COST);
  const userId = newId("usr");
  const orgId = newId("org");
  let created;
  try {
    created = await prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: {
          id: userId,
          email: input.email,
          passwordHash,
          firstName: input.first_name ?? "",
          lastName: input.last_name ?? "",
          subscribeNewsletter: input.subscribe_newsletter ?? false,
          termsAcceptedAt: new Date(),
          lastOrganizationId: orgId,
        },
      });
      const organization = await tx.organization.create({ data: { id: orgId, name: input.organization_name, slug } });
      await tx.membership.create({ data: { userId, organizationId: orgId, role: "owner" } });
      return { user, organization };
    });
  } catch (err) {
    // Lost a race with a concurrent registration of the same email or slug.
    const field = uniqueViolation(err);
    if (field === "email") throw new AppError("EMAIL_TAKEN", "an account with this email exists already");
    if (field === "slug") throw new AppError("SLUG_TAKEN", "organization_slug is taken; choose another");
    throw err;
  }

  await recordAudit(app, { action: "user.registered", organizationId: orgId, actorId: userId, targetType: "user", targetId: userId, ipAddress: meta.ip });
  await sendVerificationMail(app, created.user);
  return {
    user: userSummaryView(created.user),
    organization: { id: created.organization.id, name: created.organization.name, slug: created.organization.slug, plan: created.organization.plan },
  };
}
