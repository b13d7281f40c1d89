/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // `npm run typecheck` (next typegen, then tsc over the same files and Next's generated route
  // types) is what .ci/run runs before it builds; it sets FLOWPLANE_TYPECHECKED=1 for the build so
  // the same check does not run twice (about 40 s of two cores). Everyone else's build checks types.
  typescript: { ignoreBuildErrors: process.env.FLOWPLANE_TYPECHECKED === "1" },
  // Turbopack keeps a build cache in .next for the next build; a CI run builds a fresh clone once,
  // so writing it (about 14 s beside the type check) would be thrown away.
  ...(process.env.CI && process.env.CI !== "false" ? { experimental: { turbopackFileSystemCacheForBuild: false } } : {}),
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
