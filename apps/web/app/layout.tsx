import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import { THEME_BOOT } from "@/components/theme-boot";
import "./globals.css";

export const metadata: Metadata = {
  title: "Arbor",
  description: "A workbench for LLM agents",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#fafafa" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // the request's CSP nonce (proxy.ts): the only inline script that may run is one carrying it
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // the boot script changes <html>'s class before React hydrates; that difference is expected
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* a constant script of ours, run before paint to pick the theme */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT }} />
      </head>
      <body className="min-h-dvh">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
