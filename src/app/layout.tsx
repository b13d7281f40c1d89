import type { Metadata } from "next";
import type { ReactNode } from "react";
import { connection } from "next/server";
import "./globals.css";
import { TRPCReactProvider } from "@/trpc/react";

export const metadata: Metadata = {
  title: { default: "Flowplane", template: "%s · Flowplane" },
  description: "Build, deploy and watch flows of nodes, for every team in your organization.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: its scripts carry that response's CSP nonce
  // (src/server/http/content-security-policy.ts), which a prerendered page could not.
  await connection();
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
