import { defineConfig } from "prisma/config";

// Prisma 7 keeps the connection URL out of schema.prisma. The CLI is only used for `generate`
// here (migrations are applied by src/server/migrate.ts), so a URL is optional.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
