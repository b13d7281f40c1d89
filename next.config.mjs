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
    ];
  },
};

export default nextConfig;
