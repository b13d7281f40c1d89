import { describe, expect, it } from "vitest";
import { escapeHtml, invitationMail, mfaChangedMail, passwordChangedMail, passwordResetMail, verifyEmailMail } from "./templates";

const link = "https://app.flowplane.test/verify-email?token=abc_DEF-123&x=1";
const when = new Date("2025-03-04T05:06:07Z");

describe("escapeHtml", () => {
  it("escapes the five HTML-special characters", () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
  });
});

describe("mail templates", () => {
  it("puts the link in both the text and the HTML (escaped in HTML)", () => {
    for (const mail of [
      verifyEmailMail({ firstName: "Ada", link }),
      passwordResetMail({ firstName: "Ada", link, expiresInMinutes: 30 }),
      invitationMail({ organizationName: "Acme", inviterName: "Grace", role: "admin", link }),
    ]) {
      expect(mail.text).toContain(link);
      expect(mail.html).toContain(`href="${link.replace("&", "&amp;")}"`);
      expect(mail.html).not.toContain("x=1&x");
      expect(mail.subject).toContain("Flowplane");
      expect(mail.text).toContain("Flowplane");
    }
  });

  it("names the recipient and the details", () => {
    const reset = passwordResetMail({ firstName: "Ada", link, expiresInMinutes: 30 });
    expect(reset.text).toMatch(/^Hello Ada,/);
    expect(reset.text).toContain("30 minutes");

    const invite = invitationMail({ organizationName: "Acme Labs", inviterName: "Grace Hopper", role: "admin", link });
    expect(invite.subject).toBe("Grace Hopper invited you to Acme Labs on Flowplane");
    expect(invite.text).toContain("admin");
    expect(invite.html).toContain("Acme Labs");

    const changed = passwordChangedMail({ firstName: "Ada", when, ip: "203.0.113.9" });
    expect(changed.text).toContain("2025-03-04 05:06 UTC");
    expect(changed.text).toContain("203.0.113.9");
    expect(passwordChangedMail({ firstName: "Ada", when, ip: null }).text).not.toContain("IP address");

    const on = mfaChangedMail({ firstName: "Ada", enabled: true, when, ip: "203.0.113.9" });
    const off = mfaChangedMail({ firstName: "Ada", enabled: false, when, ip: "203.0.113.9" });
    expect(on.subject).toContain("turned on");
    expect(off.subject).toContain("turned off");
    expect(on.text).toContain("backup codes");
  });

  it("escapes user-controlled values in the HTML", () => {
    const evil = `<script>alert("x")</script>`;
    const mails = [
      verifyEmailMail({ firstName: evil, link }),
      passwordChangedMail({ firstName: evil, when, ip: evil }),
      invitationMail({ organizationName: evil, inviterName: evil, role: "member", link: `${link}"><script>` }),
    ];
    for (const mail of mails) {
      expect(mail.html).not.toContain("<script>");
      expect(mail.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
      // The plain-text part keeps the value as is.
      expect(mail.text).toContain(evil);
    }
  });
});
