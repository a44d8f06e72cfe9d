"use client";

import type { ShareRole } from "@arbor/core/browser";
import { ShareDialog } from "@arbor/ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { ApiError, api, errorText } from "@/lib/client/api";

// The session menu's "Share…" dialog wired to the API (docs/sharing.md): its lists come from
// GET /shares, each change refetches them.

export interface ShareSessionProps {
  sessionId: string;
  branchId: string;
  branchName: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

export function ShareSession({
  sessionId,
  branchId,
  branchName,
  open,
  onOpenChange,
}: ShareSessionProps) {
  const queryClient = useQueryClient();
  const key = ["shares", sessionId];
  const shares = useQuery({
    queryKey: key,
    queryFn: () => api.listShares(sessionId),
    enabled: open,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const failed = (what: string) => (error: unknown) =>
    toast.error(what, { description: errorText(error) });
  return (
    <ShareDialog
      open={open}
      onOpenChange={onOpenChange}
      people={shares.data?.people ?? []}
      links={shares.data?.links ?? []}
      branchName={branchName}
      onAddPerson={async (email: string, role: ShareRole) => {
        try {
          await api.shareSession(sessionId, { email, role });
        } catch (error) {
          // the field's own problem ("no person of this install has it") reads best in the form
          throw new Error(
            error instanceof ApiError && error.fields[0] !== undefined
              ? error.fields[0].message
              : errorText(error),
          );
        }
        await refresh();
      }}
      onRemovePerson={(userId) => {
        api.unshareSession(sessionId, userId).then(refresh, failed("Revoking failed"));
      }}
      onCreateLink={async (expiresAt) => {
        const made = await api.createLink(sessionId, {
          branch_id: branchId,
          ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
        });
        await refresh();
        return made.url;
      }}
      onRevokeLink={(linkId) => {
        api.revokeLink(sessionId, linkId).then(refresh, failed("Revoking the link failed"));
      }}
    />
  );
}
