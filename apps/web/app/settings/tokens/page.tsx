import { TokensView } from "@/components/account/tokens-view";

export const metadata = { title: "Tokens · Arbor" };
export const dynamic = "force-dynamic";

/** Settings › Tokens: the signed-in person's personal API tokens. */
export default function TokensPage() {
  return <TokensView />;
}
