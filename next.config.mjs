/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Native or wasm packages that must be loaded by Node, not bundled.
  serverExternalPackages: [
    "bcrypt",
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "pg",
    "ioredis",
    "pino",
    "nodemailer",
    "qrcode",
    "rate-limiter-flexible",
  ],
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
      // Pages reached through mailed links carry a token in the URL: never send it on as a referrer.
      ...["/reset-password", "/verify-email", "/invitations/accept"].map((source) => ({
        source,
        headers: [{ key: "Referrer-Policy", value: "no-referrer" }],
      })),
    ];
  },
};

export default nextConfig;
