import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import { TRPCReactProvider } from "@/trpc/react";

export const metadata: Metadata = {
  title: { default: "Flowplane", template: "%s · Flowplane" },
  description: "Build, deploy and watch flows of nodes, for every team in your organization.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
