import { AUDIT_ACTION_MEANINGS, AUDIT_ACTIONS } from "@arbor/core";
import { AdminAuditView } from "@/components/admin/admin-audit-view";

export const metadata = { title: "Audit log · Arbor" };

// The actions are read here, on the server: browser code takes only types from @arbor/core.
export default function AdminAuditPage() {
  return <AdminAuditView actions={AUDIT_ACTIONS} meanings={AUDIT_ACTION_MEANINGS} />;
}
