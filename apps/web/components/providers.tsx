"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Toaster } from "sonner";
import { useDocumentTheme } from "./theme";

/** One QueryClient per browser tab; the session's events say when to refetch, not a timer. */
export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { staleTime: 2_000, refetchOnWindowFocus: false, retry: 1 },
        },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      {children}
      <Toasts />
    </QueryClientProvider>
  );
}

/**
 * Errors and notices as toasts, in view wherever the page is scrolled (docs/decisions/0018-toasts-and-outgoing-messages.md).
 * At the top, where they cover neither the composer nor the newest message.
 */
function Toasts() {
  const theme = useDocumentTheme();
  return (
    <Toaster
      theme={theme}
      position="top-center"
      closeButton
      richColors
      toastOptions={{ duration: 6_000 }}
      containerAriaLabel="Notifications"
    />
  );
}
