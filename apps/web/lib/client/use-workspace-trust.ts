"use client";

import type { TrustDefinitionView } from "@arbor/core/browser";
import { trustKey } from "@arbor/ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { toast } from "sonner";
import { api, errorText } from "./api";

// The workspace's executable configuration and its trust (GET /api/workspace/trust), for the
// trust prompt above the chat and the list in the session settings. Looked at again every few
// seconds: an edit of mcp_servers.json makes a trusted server `changed`, and the prompt asks again.

export function useWorkspaceTrust() {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ["workspace-trust"],
    queryFn: () => api.workspaceTrust(),
    refetchInterval: 3_000,
  });
  const [busy, setBusy] = useState<ReadonlySet<string>>(() => new Set());
  // "Not now" hides the prompt until the waiting definitions change
  const [dismissed, setDismissed] = useState<string | undefined>();

  const run = useCallback(
    async (definition: TrustDefinitionView, action: "trust" | "revoke") => {
      const key = trustKey(definition);
      setBusy((keys) => new Set([...keys, key]));
      try {
        const next =
          action === "trust"
            ? await api.trustDefinition(definition)
            : await api.revokeTrust(definition);
        queryClient.setQueryData(["workspace-trust"], next);
      } catch (error) {
        toast.error(action === "trust" ? "Not trusted" : "Trust not revoked", {
          description: errorText(error),
        });
        await queryClient.invalidateQueries({ queryKey: ["workspace-trust"] });
      } finally {
        setBusy((keys) => new Set([...keys].filter((k) => k !== key)));
        // servers start or stop, specs load or go: their lists change
        await queryClient.invalidateQueries({ queryKey: ["mcp-servers"] });
        await queryClient.invalidateQueries({ queryKey: ["openapi-specs"] });
      }
    },
    [queryClient],
  );

  const waiting = (query.data?.definitions ?? [])
    .filter((d) => d.status !== "trusted")
    .map((d) => `${trustKey(d)}\0${d.hash}`)
    .join("\n");
  return {
    data: query.data,
    busy,
    trust: (definition: TrustDefinitionView) => void run(definition, "trust"),
    revoke: (definition: TrustDefinitionView) => void run(definition, "revoke"),
    dismissed: waiting !== "" && dismissed === waiting,
    dismiss: () => setDismissed(waiting),
  };
}
