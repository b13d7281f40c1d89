import { passwordPolicy } from "@/shared/policy";

export const PASSWORD_HINT = `${passwordPolicy.minLength}–${passwordPolicy.maxLength} characters, not a common password.`;
