import { ProviderKeysView } from "@/components/settings/provider-keys-view";

export const metadata = { title: "Model providers · Arbor" };
export const dynamic = "force-dynamic";

/** Settings › Model providers: the owner and admins keep provider keys (docs/decisions/0054). */
export default function ProvidersPage() {
  return <ProviderKeysView />;
}
